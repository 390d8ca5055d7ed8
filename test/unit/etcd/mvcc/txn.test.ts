import { describe, expect, it } from 'vitest';
import { CompareResult as R, CompareTarget as T, MvccStore, type Compare, type ResponseOp } from '../../../../main/etcd/mvcc/index';
import { cmp, delReq, dump, kvView, op, putReq, s, storeWith, txnReq } from './helpers';

// a: create 2, mod 3, version 2, value "a2", lease 0;  b: create 4, mod 4, version 1, lease 7
function fixture(): MvccStore {
  const st = new MvccStore();
  st.put(putReq('a', 'a1'));
  st.put(putReq('a', 'a2'));
  st.put(putReq('b', 'b1', { lease: 7n }));
  return st;
}

const compareCases: { name: string; c: Compare; want: boolean }[] = [
  { name: 'version = 2', c: cmp('a', T.Version, R.Equal, { version: 2 }), want: true },
  { name: 'version > 1', c: cmp('a', T.Version, R.Greater, { version: 1 }), want: true },
  { name: 'version < 2', c: cmp('a', T.Version, R.Less, { version: 2 }), want: false },
  { name: 'version != 2', c: cmp('a', T.Version, R.NotEqual, { version: 2 }), want: false },
  { name: 'create = 2', c: cmp('a', T.Create, R.Equal, { create: 2 }), want: true },
  { name: 'mod = 3', c: cmp('a', T.Mod, R.Equal, { mod: 3 }), want: true },
  { name: 'mod > 3', c: cmp('a', T.Mod, R.Greater, { mod: 3 }), want: false },
  { name: 'value = a2', c: cmp('a', T.Value, R.Equal, { value: 'a2' }), want: true },
  { name: 'value < a3', c: cmp('a', T.Value, R.Less, { value: 'a3' }), want: true },
  { name: 'lease = 7', c: cmp('b', T.Lease, R.Equal, { lease: 7n }), want: true },
  { name: 'lease = 0 on a key without lease', c: cmp('a', T.Lease, R.Equal, { lease: 0n }), want: true },
  { name: 'missing key: version = 0', c: cmp('zz', T.Version, R.Equal, { version: 0 }), want: true },
  { name: 'missing key: create = 0', c: cmp('zz', T.Create, R.Equal, { create: 0 }), want: true },
  { name: 'missing key: value = "" is false', c: cmp('zz', T.Value, R.Equal, { value: '' }), want: false },
  { name: 'missing key: value != x is false', c: cmp('zz', T.Value, R.NotEqual, { value: 'x' }), want: false },
  { name: 'range: every key version > 0', c: cmp('a', T.Version, R.Greater, { version: 0 }, 'c'), want: true },
  { name: 'range: not every key version > 1', c: cmp('a', T.Version, R.Greater, { version: 1 }, 'c'), want: false },
  { name: 'from-key range: every mod < 5', c: cmp('a', T.Mod, R.Less, { mod: 5 }, '\0'), want: true },
  { name: 'empty range compares a zero kv', c: cmp('x', T.Mod, R.Equal, { mod: 0 }, 'y'), want: true },
];

describe('MvccStore.txn compares', () => {
  it.each(compareCases)('$name → $want', ({ c, want }) => {
    const st = fixture();
    const r = st.txn(txnReq([c], [op.get('a')], [op.get('b')]));
    expect(r.succeeded).toBe(want);
    expect(r.revision).toBe(4); // read-only: no new revision
    expect(st.currentRevision).toBe(4);
  });

  it('all compares must hold', () => {
    const st = fixture();
    const ok = cmp('a', T.Version, R.Equal, { version: 2 });
    const bad = cmp('b', T.Version, R.Equal, { version: 2 });
    expect(st.txn(txnReq([ok, ok], [])).succeeded).toBe(true);
    expect(st.txn(txnReq([ok, bad], [])).succeeded).toBe(false);
    expect(st.txn(txnReq([], [])).succeeded).toBe(true);
  });
});

describe('MvccStore.txn writes', () => {
  it('puts and deletes share one revision with increasing sub-revisions', () => {
    const st = fixture();
    const r = st.txn(txnReq([], [op.put('x', '1'), op.del('a'), op.put('y', '2'), op.get('x')]));
    expect(r.revision).toBe(5);
    expect(r.succeeded).toBe(true);
    const [p1, d, p2, g] = r.responses as [ResponseOp, ResponseOp, ResponseOp, ResponseOp];
    expect('put' in p1 && p1.put.revision).toBe(5);
    expect('deleteRange' in d && d.deleteRange).toEqual({ deleted: 1, prevKvs: [], revision: 5 });
    expect('put' in p2 && p2.put.revision).toBe(5);
    // a read after writes in the same txn sees them, at the txn's revision
    expect('range' in g && g.range.kvs.map(kvView)).toEqual([{ key: 'x', value: '1', create: 5, mod: 5, version: 1 }]);
    expect('range' in g && g.range.revision).toBe(5);
    expect(dump(st)).toEqual(['b=b1', 'x=1', 'y=2']);
    expect(st.eventsBetween(5, 5, 1)[0]!.events.map((e) => s(e.kv.key))).toEqual(['x', 'a', 'y']);
  });

  it('a read before any write sees the old revision', () => {
    const st = fixture();
    const r = st.txn(txnReq([], [op.get('a'), op.put('a', 'a3')]));
    const [g] = r.responses as [ResponseOp];
    expect('range' in g && g.range.revision).toBe(4);
    expect('range' in g && g.range.kvs.map((kv) => s(kv.value))).toEqual(['a2']);
  });

  it('runs the failure branch when a compare fails', () => {
    const st = fixture();
    const r = st.txn(txnReq([cmp('a', T.Value, R.Equal, { value: 'nope' })], [op.put('s', '1')], [op.put('f', '1')]));
    expect(r.succeeded).toBe(false);
    expect(dump(st)).toEqual(['a=a2', 'b=b1', 'f=1']);
  });

  it('a txn whose deletes find nothing keeps the revision', () => {
    const st = fixture();
    const r = st.txn(txnReq([], [op.del('nothing'), op.get('a')]));
    expect(r.revision).toBe(4);
    const [d] = r.responses as [ResponseOp];
    expect('deleteRange' in d && d.deleteRange.revision).toBe(4);
    expect(st.currentRevision).toBe(4);
  });

  it('nested txns decide their branch from the state before the outer txn', () => {
    const st = storeWith(['flag', 'off']); // rev 2
    const inner = txnReq([cmp('flag', T.Value, R.Equal, { value: 'off' })], [op.put('inner', 'then')], [op.put('inner', 'else')]);
    const r = st.txn(txnReq([], [op.put('flag', 'on'), op.txn(inner), op.get('flag')]));
    expect(r.revision).toBe(3);
    const [, nested, g] = r.responses as [ResponseOp, ResponseOp, ResponseOp];
    // etcd leaves nested txn response headers unfilled: revision 0
    expect('txn' in nested && { ok: nested.txn.succeeded, rev: nested.txn.revision }).toEqual({ ok: true, rev: 0 });
    expect('range' in g && g.range.kvs.map((kv) => s(kv.value))).toEqual(['on']);
    expect(dump(st)).toEqual(['flag=on', 'inner=then']);
  });

  it('deeply nested txns write in the same revision', () => {
    const st = new MvccStore();
    const deepest = txnReq([], [op.put('c', '3')]);
    const middle = txnReq([cmp('x', T.Version, R.Greater, { version: 0 })], [], [op.put('b', '2'), op.txn(deepest)]);
    const r = st.txn(txnReq([], [op.put('a', '1'), op.txn(middle)]));
    expect(r.revision).toBe(2);
    expect(dump(st)).toEqual(['a=1', 'b=2', 'c=3']);
    expect(st.range(rangeAll()).kvs.map((kv) => kv.modRevision)).toEqual([2, 2, 2]);
  });

  const failing: { name: string; ops: ReturnType<typeof op.put>[]; err: string }[] = [
    { name: 'ignoreValue on a missing key', ops: [op.put('x', '1'), op.put('missing', '', { ignoreValue: true })], err: 'etcdserver: key not found' },
    { name: 'range at a future revision', ops: [op.put('x', '1'), op.get('a', { revision: 5 })], err: 'required revision is a future revision' },
    { name: 'ignoreLease on a key created earlier in the txn', ops: [op.put('new', '1'), op.put('new2', '', { ignoreLease: true })], err: 'etcdserver: key not found' },
  ];
  it.each(failing)('fails before writing: $name', ({ ops, err }) => {
    const st = fixture();
    expect(() => st.txn(txnReq([], ops))).toThrow(err);
    expect(st.currentRevision).toBe(4);
    expect(dump(st)).toEqual(['a=a2', 'b=b1']);
  });

  it('fails with compacted for a range below the compacted revision', () => {
    const st = fixture();
    st.compact(3);
    expect(() => st.txn(txnReq([], [op.get('a', { revision: 2 })]))).toThrow('required revision has been compacted');
    const r = st.txn(txnReq([], [op.get('a', { revision: 3 })]));
    const [g] = r.responses as [ResponseOp];
    expect('range' in g && g.range.kvs.map((kv) => s(kv.value))).toEqual(['a2']);
  });

  it('commits the changes made before an op that fails mid-txn (unchecked request)', () => {
    const st = fixture();
    // checkTxnRequest would reject this (put inside a deleted range); the store must stay consistent anyway
    expect(() => st.txn(txnReq([], [op.del('a'), op.put('a', '', { ignoreValue: true })]))).toThrow('etcdserver: key not found');
    expect(st.currentRevision).toBe(5);
    expect(dump(st)).toEqual(['b=b1']);
    expect(st.put(putReq('c', '1')).revision).toBe(6);
  });

  it('checks put leases through the hooks', () => {
    const st = fixture();
    st.leases = { exists: () => false, attach: () => undefined, detach: () => undefined };
    expect(() => st.txn(txnReq([], [op.put('x', '1', { lease: 3n })]))).toThrow('etcdserver: requested lease not found');
    expect(st.currentRevision).toBe(4);
  });

  it('delete with prevKv inside a txn', () => {
    const st = fixture();
    const r = st.txn(txnReq([], [{ deleteRange: delReq('a', 'c', { prevKv: true }) }]));
    const [d] = r.responses as [ResponseOp];
    expect('deleteRange' in d && d.deleteRange.prevKvs.map((kv) => s(kv.key))).toEqual(['a', 'b']);
    expect('deleteRange' in d && d.deleteRange.deleted).toBe(2);
  });
});

function rangeAll() {
  const o = op.get('\0', { end: '\0' });
  if (!('range' in o)) throw new Error('unreachable');
  return o.range;
}
