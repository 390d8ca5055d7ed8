// `pilothouse etcd` rejects bad command lines the way `etcd` 3.4 does: the
// same first line of error text (less etcd's log timestamp) and exit code.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_JS, ETCD_BINARY } from '../../support/cluster';

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

/**
 * stderr up to and including the first error line, less etcd's log prefix
 * ("2026-01-01 00:00:00.000000 E | etcdmain: ..." → "etcdmain: ..."); the
 * usage text after a Go flag error lists different flags and is not compared.
 */
function errorLines(command: string, args: string[], env: Record<string, string> = {}): { lines: string[]; status: number | null } {
  // cwd is our temp dir, so a case that unexpectedly starts a member writes there.
  const r = spawnSync(command, args, { cwd: dir, encoding: 'utf8', timeout: 10_000, env: { ...process.env, ...env } });
  const all = `${r.stderr}`
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('[WARNING]'))
    .map((l) => l.replace(/^\S+ \S+ [A-Z] \| /, ''));
  const end = all.findIndex((l) => /error|invalid value|not defined|needs an argument|conflicting/.test(l));
  return { lines: all.slice(0, end + 1), status: r.status };
}

describe('pilothouse etcd command line', () => {
  for (const args of CASES) {
    it(`rejects ${args.join(' ')} like etcd 3.4`, () => {
      const want = errorLines(ETCD_BINARY, args);
      const got = errorLines(process.execPath, [CLI_JS, 'etcd', ...args]);
      expect(want.status).not.toBe(0);
      expect(want.lines.length).toBeGreaterThan(0);
      expect(got).toEqual(want);
    });
  }

  const ENV_CASES: { env: Record<string, string>; args: string[] }[] = [
    { env: { ETCD_HEARTBEAT_INTERVAL: 'x' }, args: [] },
    { env: { ETCD_ELECTION_TIMEOUT: '200' }, args: [] },
    { env: { ETCD_INITIAL_CLUSTER_STATE: 'maybe', ETCD_SNAPSHOT_COUNT: '5' }, args: [] },
    { env: { ETCD_NAME: 'from-env' }, args: ['--name', 'from-flag'] },
  ];
  for (const { env, args } of ENV_CASES) {
    it(`rejects ${JSON.stringify(env)} ${args.join(' ')} like etcd 3.4`, () => {
      const want = errorLines(ETCD_BINARY, args, env);
      const got = errorLines(process.execPath, [CLI_JS, 'etcd', ...args], env);
      expect(want.status).not.toBe(0);
      expect(want.lines.length).toBeGreaterThan(0);
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
    expect(top.stdout).toMatch(/up \[options\]\s+run a local control plane/);
  });
});
