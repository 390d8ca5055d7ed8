import { describe, expect, it } from 'vitest';
import type { KeyValue, RangeRequest, RangeResult } from '../../../main/client/etcd/etcdClient';
import { censusResource, classifyValue, storageCensus } from '../../../main/upgrade/storageCensus';

const b = (s: string) => Buffer.from(s, 'latin1');

describe('classifyValue', () => {
  const cases: { name: string; value: Buffer; want: string }[] = [
    { name: 'protobuf envelope', value: b('k8s\u0000\n\u000c\n\u0002v1\u0012\u0006Secret'), want: 'protobuf' },
    { name: 'json', value: b('{"kind":"Secret","apiVersion":"v1"}'), want: 'json' },
    { name: 'json after whitespace', value: b('\n  {"kind":"Pod"}'), want: 'json' },
    { name: 'aescbc', value: b('k8s:enc:aescbc:v1:key1:\u0001\u0002'), want: 'encrypted:aescbc:key1' },
    { name: 'aesgcm', value: b('k8s:enc:aesgcm:v1:rotated-2:xyz'), want: 'encrypted:aesgcm:rotated-2' },
    { name: 'secretbox', value: b('k8s:enc:secretbox:v1:sb:xyz'), want: 'encrypted:secretbox:sb' },
    { name: 'kms v1', value: b('k8s:enc:kms:v1:vault:\u0000\u0010'), want: 'encrypted:kms:vault' },
    { name: 'kms v2', value: b('k8s:enc:kms:v2:vault:\n\u0004'), want: 'encrypted:kmsv2:vault' },
    { name: 'an encryption mark without a key', value: b('k8s:enc:aescbc'), want: 'other' },
    { name: 'k8s without the NUL', value: b('k8s-something'), want: 'other' },
    { name: 'empty', value: b(''), want: 'other' },
    { name: 'a range allocation in raw bytes', value: Buffer.from([0x08, 0x01, 0x12, 0x00]), want: 'other' },
  ];
  for (const c of cases) it(c.name, () => expect(classifyValue(c.value)).toBe(c.want));
});

describe('censusResource', () => {
  const cases: [string, string | undefined][] = [
    ['/registry/secrets/default/s1', 'secrets'],
    ['/registry/namespaces/default', 'namespaces'],
    ['/registry/deployments/default/nginx', 'deployments'],
    ['/registry/services/specs/default/kubernetes', 'services/specs'],
    ['/registry/apiregistration.k8s.io/apiservices/v1.apps', 'apiregistration.k8s.io/apiservices'],
    ['/registry/ranges/serviceips', 'ranges'],
    ['/other/key', undefined],
  ];
  for (const [key, want] of cases) it(key, () => expect(censusResource(key)).toBe(want));
});

/** An etcd keyspace with history: range answers at a revision, in key order, `limit` at a time. */
function fakeEtcd(history: { rev: bigint; key: string; value: Buffer }[]) {
  const ranges: RangeRequest[] = [];
  const head = history.reduce((m, h) => (h.rev > m ? h.rev : m), 0n);
  return {
    ranges,
    async range(r: RangeRequest): Promise<RangeResult> {
      ranges.push(r);
      const at = r.revision ?? head;
      const live = new Map<string, KeyValue>();
      for (const h of history) if (h.rev <= at) live.set(h.key, { key: b(h.key), value: h.value, createRevision: h.rev, modRevision: h.rev, version: 1n, lease: 0n });
      const start = Buffer.from(r.key);
      const end = Buffer.from(r.rangeEnd!);
      const inRange = [...live.values()].filter((kv) => Buffer.compare(kv.key, start) >= 0 && Buffer.compare(kv.key, end) < 0).sort((x, y) => Buffer.compare(x.key, y.key));
      const kvs = inRange.slice(0, r.limit);
      return { revision: head, kvs, more: inRange.length > kvs.length, count: BigInt(inRange.length) };
    },
  };
}

describe('storageCensus', () => {
  it('counts per resource and encoding over pages, all at the first page\'s revision', async () => {
    const etcd = fakeEtcd([
      { rev: 1n, key: '/registry/namespaces/default', value: b('k8s\u0000ns') },
      { rev: 2n, key: '/registry/secrets/default/a', value: b('k8s\u0000a') },
      { rev: 3n, key: '/registry/secrets/default/b', value: b('k8s:enc:aescbc:v1:key1:b') },
      { rev: 4n, key: '/registry/secrets/kube-system/c', value: b('k8s:enc:aescbc:v1:key1:c') },
      { rev: 5n, key: '/registry/services/specs/default/kubernetes', value: b('k8s\u0000svc') },
      { rev: 6n, key: '/registry/configmaps/default/j', value: b('{"kind":"ConfigMap"}') },
      { rev: 7n, key: '/not-registry/x', value: b('k8s\u0000x') },
    ]);
    const census = await storageCensus(etcd, { pageSize: 2 });
    expect(census).toEqual({
      revision: 7n,
      total: 6,
      resources: {
        configmaps: { json: 1 },
        namespaces: { protobuf: 1 },
        secrets: { 'encrypted:aescbc:key1': 2, protobuf: 1 },
        'services/specs': { protobuf: 1 },
      },
    });
    expect(etcd.ranges.length).toBe(3);
    expect(etcd.ranges.every((r) => r.limit === 2)).toBe(true);
    expect(etcd.ranges.slice(1).every((r) => r.revision === 7n)).toBe(true);
  });

  it('an empty keyspace', async () => {
    expect(await storageCensus(fakeEtcd([]))).toEqual({ revision: 0n, total: 0, resources: {} });
  });
});
