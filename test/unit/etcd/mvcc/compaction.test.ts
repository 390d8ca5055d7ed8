import { describe, expect, it } from 'vitest';
import { MvccStore } from '../../../../main/etcd/mvcc/index';
import { delReq, dump, putReq, rangeReq, s } from './helpers';

// foo: put@2, put@3, del@4, put@5;  bar: put@6, del@7;  baz: put@8
function fixture(): MvccStore {
  const st = new MvccStore();
  st.put(putReq('foo', 'f1'));
  st.put(putReq('foo', 'f2'));
  st.deleteRange(delReq('foo'));
  st.put(putReq('foo', 'f3'));
  st.put(putReq('bar', 'b1'));
  st.deleteRange(delReq('bar'));
  st.put(putReq('baz', 'z1'));
  return st;
}

const everything = (st: MvccStore, revision: number) => dumpAt(st, revision);
function dumpAt(st: MvccStore, revision: number): string[] {
  return dump(st, revision);
}

describe('MvccStore.compact', () => {
  it.each([
    { rev: 2, reads: { 2: ['foo=f1'], 3: ['foo=f2'], 4: [], 6: ['bar=b1', 'foo=f3'], 8: ['baz=z1', 'foo=f3'] } },
    { rev: 3, reads: { 3: ['foo=f2'], 4: [], 5: ['foo=f3'], 8: ['baz=z1', 'foo=f3'] } },
    { rev: 4, reads: { 4: [], 5: ['foo=f3'], 7: ['foo=f3'] } },
    { rev: 6, reads: { 6: ['bar=b1', 'foo=f3'], 7: ['foo=f3'] } },
    { rev: 8, reads: { 8: ['baz=z1', 'foo=f3'] } },
  ])('at $rev: reads at or above it are unchanged, below it fail', ({ rev, reads }) => {
    const st = fixture();
    const before = Object.fromEntries(Object.keys(reads).map((r) => [r, everything(st, Number(r))]));
    expect(before).toEqual(reads);
    st.compact(rev);
    expect(st.compactRevision).toBe(rev);
    expect(st.currentRevision).toBe(8);
    for (const [r, want] of Object.entries(reads)) expect(everything(st, Number(r))).toEqual(want);
    expect(() => everything(st, rev - 1)).toThrow('etcdserver: mvcc: required revision has been compacted');
  });

  it('keeps per key the newest revision ≤ rev unless it is a tombstone', () => {
    const st = fixture();
    st.compact(7);
    // foo keeps 5, bar (tombstone at 7) is gone, baz keeps 8
    expect(st.indexedKeys).toBe(2);
    expect(st.eventsBetween(7, 0, 10).map((g) => [g.revision, g.events.map((e) => s(e.kv.key))])).toEqual([[8, ['baz']]]);
    const foo = st.range(rangeReq('foo', { revision: 7 })).kvs[0]!;
    expect([foo.createRevision, foo.modRevision, foo.version]).toEqual([5, 5, 1]);
  });

  it('keeps the value history of a key rewritten after the compaction point', () => {
    const st = new MvccStore();
    st.put(putReq('k', 'v1')); // 2
    st.put(putReq('k', 'v2')); // 3
    st.put(putReq('k', 'v3')); // 4
    st.compact(3);
    expect(st.range(rangeReq('k', { revision: 3 })).kvs.map((kv) => [s(kv.value), kv.version])).toEqual([['v2', 2]]);
    expect(st.range(rangeReq('k')).kvs.map((kv) => [s(kv.value), kv.version, kv.createRevision])).toEqual([['v3', 3, 2]]);
    st.put(putReq('k', 'v4')); // 5: version keeps counting after compaction
    expect(st.range(rangeReq('k')).kvs[0]!.version).toBe(4);
  });

  it.each([
    { name: 'at the compacted revision', first: 4, then: 4, err: 'required revision has been compacted' },
    { name: 'below the compacted revision', first: 4, then: 3, err: 'required revision has been compacted' },
    { name: 'in the future', first: 0, then: 9, err: 'required revision is a future revision' },
  ])('fails $name', ({ first, then, err }) => {
    const st = fixture();
    if (first > 0) st.compact(first);
    expect(() => st.compact(then)).toThrow(err);
  });

  it('compacting at the current revision drops all deleted keys', () => {
    const st = fixture();
    st.deleteRange(delReq('foo')); // 9
    st.compact(9);
    expect(st.indexedKeys).toBe(1);
    expect(dump(st)).toEqual(['baz=z1']);
    st.put(putReq('foo', 'again')); // 10: a fresh creation
    expect(st.range(rangeReq('foo')).kvs.map((kv) => [kv.createRevision, kv.version])).toEqual([[10, 1]]);
  });
});
