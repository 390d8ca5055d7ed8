import { describe, expect, it } from 'vitest';
import { CompareResult, CompareTarget, MvccStore } from '../../../../main/etcd/mvcc/index';
import { cmp, delReq, op, putReq, rangeReq, s, txnReq } from './helpers';

/** A small deterministic PRNG, so the "random" workload is the same on every run. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

/** Feeds a mixed workload of puts, deletes, txns and compactions. */
function workload(st: MvccStore, seed: number, steps: number, compactions = true): void {
  const rand = rng(seed);
  const key = () => `key/${Math.floor(rand() * 40)}`;
  for (let i = 0; i < steps; i++) {
    const p = rand();
    if (p < 0.5) st.put(putReq(key(), `v${i}`, { lease: rand() < 0.1 ? 42n : 0n }));
    else if (p < 0.65) st.deleteRange(delReq(key()));
    else if (p < 0.7) st.deleteRange(delReq(key(), key()));
    else if (p < 0.9) {
      const k = key();
      st.txn(txnReq([cmp(k, CompareTarget.Version, CompareResult.Greater, { version: 1 })], [op.put(k, `t${i}`), op.del(`${k}x`)], [op.put(`${k}y`, 'f')]));
    } else if (p < 0.93) {
      const target = st.currentRevision - 5 - Math.floor(rand() * 5);
      if (compactions && target > st.compactRevision && target > 1) st.compact(target);
    } else st.range(rangeReq('key/', { end: 'key0' }));
  }
}

function fullState(st: MvccStore) {
  const all = st.range(rangeReq('\0', { end: '\0' }));
  const history = st.eventsBetween(Math.max(st.compactRevision, 1), 0, 1 << 30);
  return {
    rev: st.currentRevision,
    compact: st.compactRevision,
    kvs: all.kvs,
    history,
    sizes: st.sizes(),
    keys: st.indexedKeys,
    hash: st.hash(),
    hashKV: st.hashKV(0),
  };
}

describe('determinism', () => {
  it('two stores fed the same operations have the same hash and state', () => {
    const a = new MvccStore();
    const b = new MvccStore();
    workload(a, 7, 600);
    workload(b, 7, 600);
    expect(a.hash()).toBe(b.hash());
    expect(fullState(a)).toEqual(fullState(b));
  });

  it('different histories give different hashes', () => {
    const a = new MvccStore();
    const b = new MvccStore();
    workload(a, 7, 300);
    workload(b, 8, 300);
    expect(a.hash()).not.toBe(b.hash());
    const c = new MvccStore();
    workload(c, 7, 300);
    c.put(putReq('extra', 'x'));
    expect(c.hash()).not.toBe(a.hash());
  });
});

describe('snapshot / restore', () => {
  it.each([
    { name: 'empty store', seed: 0, steps: 0 },
    { name: 'mixed workload with compactions', seed: 3, steps: 800 },
    { name: 'another workload', seed: 11, steps: 400 },
  ])('round-trips $name', ({ seed, steps }) => {
    const st = new MvccStore();
    workload(st, seed, steps);
    const restored = MvccStore.restore(st.snapshot());
    expect(fullState(restored)).toEqual(fullState(st));
    // a restored store goes on exactly like the original
    workload(st, seed + 100, 200);
    workload(restored, seed + 100, 200);
    expect(fullState(restored)).toEqual(fullState(st));
  });

  it('preserves binary keys, values, leases and empty values', () => {
    const st = new MvccStore();
    st.put({ ...putReq('', ''), key: new Uint8Array([0, 255, 128]), value: new Uint8Array([1, 0, 2]) });
    st.put(putReq('empty', '', { lease: -5n }));
    st.put(putReq('big', 'x'.repeat(70_000), { lease: 0x7fff_ffff_ffff_ffffn }));
    const restored = MvccStore.restore(st.snapshot());
    expect(restored.range(rangeReq('\0', { end: '\0' })).kvs).toEqual(st.range(rangeReq('\0', { end: '\0' })).kvs);
    expect(restored.hashKV(0)).toEqual(st.hashKV(0));
    const leased: string[] = [];
    restored.forEachLeasedKey((lease, key) => leased.push(`${s(key)}:${lease}`));
    expect(leased).toEqual([`big:${0x7fff_ffff_ffff_ffffn}`, 'empty:-5']);
  });

  it.each([
    { name: 'truncated', mutate: (d: Uint8Array) => d.subarray(0, d.length - 3), err: /mvcc snapshot/ },
    { name: 'flipped byte', mutate: (d: Uint8Array) => { const c = d.slice(); c[12] ^= 1; return c; }, err: /checksum mismatch/ },
    { name: 'bad magic', mutate: (d: Uint8Array) => { const c = d.slice(); c[0] = 0; return c; }, err: /bad magic/ },
  ])('rejects a $name image', ({ mutate, err }) => {
    const st = new MvccStore();
    workload(st, 5, 50);
    expect(() => MvccStore.restore(mutate(st.snapshot()))).toThrow(err);
  });

  it('snapshots and restores 100k keys quickly', () => {
    const st = new MvccStore();
    const value = new Uint8Array(64).fill(97);
    for (let i = 0; i < 100_000; i++) st.put({ ...putReq('', ''), key: new TextEncoder().encode(`/registry/pods/ns/${i}`), value });
    const t0 = performance.now();
    const image = st.snapshot();
    const t1 = performance.now();
    const restored = MvccStore.restore(image);
    const t2 = performance.now();
    expect(restored.currentRevision).toBe(100_001);
    expect(restored.range(rangeReq('/registry/pods/', { end: '/registry/pods0', countOnly: true })).count).toBe(100_000);
    expect(restored.hash()).toBe(st.hash());
    // loose bounds: the test machine is shared and often heavily loaded; they catch
    // accidental quadratic behaviour (an idle core does each in a few hundred ms)
    expect(t1 - t0).toBeLessThan(4000);
    expect(t2 - t1).toBeLessThan(4000);
  });
});

describe('hashKV', () => {
  it('errors like etcd for compacted and future revisions', () => {
    const st = new MvccStore();
    workload(st, 2, 100);
    const cur = st.currentRevision;
    st.compact(cur - 10);
    expect(() => st.hashKV(cur - 10)).toThrow('required revision has been compacted');
    expect(() => st.hashKV(cur + 1)).toThrow('required revision is a future revision');
    expect(st.hashKV(cur - 9).compactRevision).toBe(cur - 10);
    expect(st.hashKV(0)).toEqual(st.hashKV(cur));
  });

  it('a hash at an old revision does not change with later writes', () => {
    const st = new MvccStore();
    workload(st, 4, 200);
    const at = st.currentRevision;
    const before = st.hashKV(at).hash;
    workload(st, 5, 100, false);
    expect(st.hashKV(at).hash).toBe(before);
  });
});
