// `pilothouse etcd` rejects bad command lines the way `etcd` 3.4 does: the
// same first line of error text (less etcd's log timestamp) and exit code.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_JS, ETCD_BINARY } from '../harness/cluster';

const dir = mkdtempSync(join(tmpdir(), 'pilothouse-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CASES = [
  ['--bogus'],
  ['--heartbeat-interval', 'abc'],
  ['--initial-cluster-state', 'foo'],
  ['--listen-client-urls', 'http://127.0.0.1'],
  ['--election-timeout', '100'],
  ['--election-timeout=60000'],
  ['--listen-client-urls', 'http://127.0.0.1:9999'],
  ['stray'],
];

function firstErrorLine(command: string, args: string[]): { line: string; status: number | null } {
  // A data dir inside our temp dir, in case a case unexpectedly starts a member.
  const r = spawnSync(command, args, { cwd: dir, encoding: 'utf8', timeout: 10_000, env: { ...process.env, ETCDCTL_API: '3' } });
  const lines = `${r.stderr}`.split('\n').filter((l) => l !== '' && !l.startsWith('[WARNING]'));
  // etcd's capnslog prefix: "2026-01-01 00:00:00.000000 E | etcdmain: ..." → "etcdmain: ...".
  return { line: (lines[0] ?? '').replace(/^\S+ \S+ [A-Z] \| /, ''), status: r.status };
}

describe('pilothouse etcd command line', () => {
  for (const args of CASES) {
    it(`rejects ${args.join(' ')} like etcd 3.4`, () => {
      const want = firstErrorLine(ETCD_BINARY, args);
      const got = firstErrorLine(process.execPath, [CLI_JS, 'etcd', ...args]);
      expect(want.status).not.toBe(0);
      expect(got).toEqual(want);
    });
  }

  it('prints its help and version', () => {
    const help = spawnSync(process.execPath, [CLI_JS, 'etcd', '--help'], { encoding: 'utf8', timeout: 10_000 });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("--initial-cluster-token 'etcd-cluster'");
    const top = spawnSync(process.execPath, [CLI_JS, '--help'], { encoding: 'utf8', timeout: 10_000 });
    expect(top.status).toBe(0);
    expect(top.stdout).toMatch(/etcd\s+run one etcd-compatible member/);
    expect(top.stdout).toMatch(/up \[options\]\s+run a local cluster/);
  });
});
