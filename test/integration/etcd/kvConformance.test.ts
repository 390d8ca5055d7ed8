// Put/get/del/txn print what etcd 3.4 prints. The same etcdctl
// script runs against a fresh Debian etcd cluster and a fresh cluster of the
// target in one test; outputs (stdout, stderr, exit code) must be identical
// after blanking only what differs between any two clusters: cluster and
// member ids and the raft term. Revisions are compared as they are.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PORTS, reapClusters, startTestCluster, TARGET, type TestCluster } from '../../support/cluster';
import { etcdctl } from '../../support/etcdctl';
import { normalizeOutput } from '../../support/normalize';

interface Step {
  args: string[];
  stdin?: string;
}

const TXN_HIT = ['value("foo") = "bar"', '', 'put foo "from-txn"', 'get foo', '', 'put nothing here', '', ''].join('\n');
const TXN_MISS = ['mod("foo") < "2"', 'version("foo2") = "1"', '', 'del foo2', '', 'put foo4 "failure-branch"', 'get foo --prefix', '', ''].join('\n');

const SCRIPT: Step[] = [
  { args: ['put', 'foo', 'bar'] },
  { args: ['put', 'foo2', 'bar2'] },
  { args: ['put', 'foo3', 'bar3', '--prev-kv'] },
  { args: ['put', 'foo1', 'bar1', '-w', 'json'] },
  { args: ['put', 'foo', 'bar-updated', '--prev-kv'] },
  { args: ['put', 'foo', 'bar'] },
  { args: ['put', 'zebra', 'z'] },
  { args: ['get', 'foo'] },
  { args: ['get', 'missing'] },
  { args: ['get', 'missing', '-w', 'json'] },
  { args: ['get', 'foo', '--rev=2'] },
  { args: ['get', 'foo', '--rev=6', '-w', 'json'] },
  { args: ['get', 'foo', '--prefix'] },
  { args: ['get', 'foo', '--prefix', '--limit=2'] },
  { args: ['get', 'foo', '--prefix', '--limit=2', '-w', 'json'] },
  { args: ['get', 'foo', '--prefix', '--order=DESCEND'] },
  { args: ['get', 'foo', '--prefix', '--sort-by=VALUE', '--order=ASCEND'] },
  { args: ['get', 'foo', '--prefix', '--sort-by=MODIFY', '--order=DESCEND'] },
  { args: ['get', 'foo', '--prefix', '--sort-by=CREATE', '--order=DESCEND', '--limit=3'] },
  { args: ['get', 'foo', '--prefix', '--keys-only'] },
  { args: ['get', 'foo', '--prefix', '--print-value-only'] },
  { args: ['get', 'foo', '--prefix', '--count-only', '-w', 'json'] },
  { args: ['get', 'foo2', '--from-key'] },
  { args: ['get', 'foo', 'foo3'] },
  { args: ['get', 'foo', '--prefix', '-w', 'json'] },
  { args: ['get', 'foo', '-w', 'fields'] },
  { args: ['put', 'foo2', '--ignore-value'] },
  { args: ['put', 'nokey', '--ignore-value'] },
  { args: ['get', 'foo2', '-w', 'json'] },
  { args: ['txn'], stdin: TXN_HIT },
  { args: ['txn', '-w', 'json'], stdin: TXN_MISS },
  { args: ['get', '', '--from-key'] },
  { args: ['del', 'foo3', '--prev-kv'] },
  { args: ['del', 'missing'] },
  { args: ['del', 'foo', '--prefix', '-w', 'json'] },
  { args: ['del', '', '--from-key', '--prev-kv'] },
  { args: ['get', '', '--from-key', '-w', 'json'] },
  { args: ['put', 'after', 'delete'] },
  { args: ['get', 'after', '--rev=3'] },
];

async function runScript(tc: TestCluster): Promise<string[]> {
  const transcript: string[] = [];
  for (const step of SCRIPT) {
    const r = await etcdctl(step.args, { endpoints: tc.endpoints, stdin: step.stdin });
    transcript.push(`$ etcdctl ${step.args.join(' ')}\n[exit ${r.code}]\n${normalizeOutput(r.stdout)}${normalizeOutput(r.stderr)}`);
  }
  return transcript;
}

describe(`kv conformance: ${TARGET} against etcd 3.4`, () => {
  let reference: TestCluster;
  let target: TestCluster;

  beforeAll(async () => {
    [reference, target] = await Promise.all([
      startTestCluster('etcd', PORTS.kvConformance),
      startTestCluster(TARGET, PORTS.kvConformance + 10),
    ]);
  });
  afterAll(reapClusters);

  it('prints the same for the same put/get/del/txn sequence', async () => {
    const [want, got] = await Promise.all([runScript(reference), runScript(target)]);
    // Guard against a vacuous pass: the reference really answered.
    expect(want.join('\n')).toContain('"kvs":[{"key":"Zm9v","create_revision":2');
    for (let i = 0; i < SCRIPT.length; i++) expect(got[i], SCRIPT[i]!.args.join(' ')).toBe(want[i]);
  });
});
