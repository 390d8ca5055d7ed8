// Bad input gets etcd's error text and exit code. Each case runs
// through etcdctl against Debian etcd and the target; stderr and exit codes
// must be identical (after the normalization of ports and timestamps), and
// the reference must show the error we meant to provoke.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PORTS, reapClusters, startTestCluster, TARGET, type TestCluster } from '../../support/cluster';
import { etcdctl } from '../../support/etcdctl';
import { normalizeOutput } from '../../support/normalize';

function txnWithPuts(n: number, key: (i: number) => string): string {
  return ['', ...Array.from({ length: n }, (_, i) => `put ${key(i)} v`), '', '', ''].join('\n');
}

interface Case {
  name: string;
  args: string[];
  stdin?: string;
  /** What the reference (etcd 3.4) prints; proves the case provokes the error. */
  want: string;
}

// Runs in order on one cluster: `setup` puts foo at revisions 2..5 and compacts at 4.
const SETUP: string[][] = [
  ['put', 'foo', 'v1'],
  ['put', 'foo', 'v2'],
  ['put', 'foo', 'v3'],
  ['put', 'foo', 'v4'],
  ['compaction', '4'],
];

const CASES: Case[] = [
  { name: 'empty key', args: ['put', '', 'v'], want: 'etcdserver: key is not provided' },
  { name: 'empty key get', args: ['get', ''], want: 'etcdserver: key is not provided' },
  {
    name: 'request over 1.5 MiB',
    args: ['put', 'big'],
    stdin: 'x'.repeat(1.6 * 1024 * 1024),
    want: 'etcdserver: request is too large',
  },
  { name: 'txn with 129 ops', args: ['txn'], stdin: txnWithPuts(129, (i) => `k${i}`), want: 'etcdserver: too many operations in txn request' },
  { name: 'duplicate keys in txn', args: ['txn'], stdin: txnWithPuts(2, () => 'dup'), want: 'etcdserver: duplicate key given in txn request' },
  { name: 'future revision', args: ['get', 'foo', '--rev=1000'], want: 'etcdserver: mvcc: required revision is a future revision' },
  { name: 'compacted revision', args: ['get', 'foo', '--rev=2'], want: 'etcdserver: mvcc: required revision has been compacted' },
  { name: 'compaction already done', args: ['compaction', '3'], want: 'etcdserver: mvcc: required revision has been compacted' },
  { name: 'compaction in the future', args: ['compaction', '100'], want: 'etcdserver: mvcc: required revision is a future revision' },
];

async function runCases(tc: TestCluster): Promise<Map<string, string>> {
  for (const args of SETUP) {
    const r = await etcdctl(args, { endpoints: tc.endpoints });
    if (r.code !== 0) throw new Error(`${tc.impl} setup ${args.join(' ')} failed: ${r.stderr}`);
  }
  const out = new Map<string, string>();
  for (const c of CASES) {
    const r = await etcdctl(c.args, { endpoints: tc.endpoints, stdin: c.stdin });
    out.set(c.name, `[exit ${r.code}]\n${normalizeOutput(r.stdout)}${normalizeOutput(r.stderr)}`);
  }
  return out;
}

describe(`error texts: ${TARGET} against etcd 3.4`, () => {
  let reference: TestCluster;
  let target: TestCluster;

  beforeAll(async () => {
    [reference, target] = await Promise.all([
      startTestCluster('etcd', PORTS.errors),
      startTestCluster(TARGET, PORTS.errors + 10),
    ]);
  });
  afterAll(reapClusters);

  it('prints etcd 3.4 error text and exit code for each bad request', async () => {
    const [want, got] = await Promise.all([runCases(reference), runCases(target)]);
    for (const c of CASES) {
      expect(want.get(c.name), `reference ${c.name}`).toContain(c.want);
      expect(want.get(c.name), `reference ${c.name}`).toMatch(/^\[exit [1-9]/);
      expect(got.get(c.name), c.name).toBe(want.get(c.name));
    }
  });

  it('left nothing half-written by the rejected requests', async () => {
    for (const tc of [reference, target]) {
      const r = await etcdctl(['get', '', '--from-key', '--keys-only'], { endpoints: tc.endpoints });
      expect(r.stdout.split('\n').filter((l) => l !== ''), tc.impl).toEqual(['foo']);
    }
  });
});
