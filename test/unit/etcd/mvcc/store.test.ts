import { describe, expect, it } from 'vitest';
import { EventType, MvccStore, type MvccEvent } from '../../../../main/etcd/mvcc/index';
import { delReq, dump, kvView, op, putReq, rangeReq, s, txnReq } from './helpers';

type Step = { put: [string, string] } | { del: string; end?: string } | { txn: ReturnType<typeof op.put>[] };

function apply(st: MvccStore, step: Step): number {
  if ('put' in step) return st.put(putReq(step.put[0], step.put[1])).revision;
  if ('del' in step) return st.deleteRange(delReq(step.del, step.end ?? '')).revision;
  return st.txn(txnReq([], step.txn)).revision;
}

describe('MvccStore revisions', () => {
  it('starts at revision 1, never compacted', () => {
    const st = new MvccStore();
    expect(st.currentRevision).toBe(1);
    expect(st.compactRevision).toBe(-1);
    expect(st.range(rangeReq('a')).revision).toBe(1);
  });

  const cases: { name: string; steps: Step[]; want: number[] }[] = [
    { name: 'put a, put b, del a, del missing', steps: [{ put: ['a', '1'] }, { put: ['b', '2'] }, { del: 'a' }, { del: 'a' }], want: [2, 3, 4, 4] },
    { name: 'txn of three puts is one revision', steps: [{ txn: [op.put('x', '1'), op.put('y', '2'), op.put('z', '3')] }, { put: ['x', '9'] }], want: [2, 3] },
    { name: 'delete range of nothing keeps revision', steps: [{ put: ['a', '1'] }, { del: 'b', end: 'c' }, { put: ['b', '1'] }], want: [2, 2, 3] },
    { name: 'delete range of several keys is one revision', steps: [{ put: ['a', '1'] }, { put: ['b', '1'] }, { del: 'a', end: 'c' }], want: [2, 3, 4] },
  ];
  it.each(cases)('$name', ({ steps, want }) => {
    const st = new MvccStore();
    expect(steps.map((step) => apply(st, step))).toEqual(want);
    expect(st.currentRevision).toBe(want[want.length - 1]);
  });

  it('tracks create revision, mod revision and version across generations', () => {
    const st = new MvccStore();
    st.put(putReq('k', 'v1')); // 2
    st.put(putReq('k', 'v1')); // 3: same value still bumps version
    const got = () => st.range(rangeReq('k')).kvs.map(kvView);
    expect(got()).toEqual([{ key: 'k', value: 'v1', create: 2, mod: 3, version: 2 }]);
    st.deleteRange(delReq('k')); // 4
    expect(got()).toEqual([]);
    st.put(putReq('k', 'v2')); // 5: a new generation
    expect(got()).toEqual([{ key: 'k', value: 'v2', create: 5, mod: 5, version: 1 }]);
    // history stays readable
    expect(st.range(rangeReq('k', { revision: 3 })).kvs.map(kvView)).toEqual([{ key: 'k', value: 'v1', create: 2, mod: 3, version: 2 }]);
    expect(st.range(rangeReq('k', { revision: 4 })).kvs).toEqual([]);
    expect(st.range(rangeReq('k', { revision: 1 })).kvs).toEqual([]);
  });

  it('put returns prevKv and honours ignoreValue / ignoreLease', () => {
    const st = new MvccStore();
    st.put(putReq('k', 'v', { lease: 7n })); // 2
    const r = st.put(putReq('k', '', { ignoreValue: true, prevKv: true })); // 3: keeps value, drops lease
    expect(r.revision).toBe(3);
    expect(kvView(r.prevKv!)).toEqual({ key: 'k', value: 'v', create: 2, mod: 2, version: 1, lease: 7n });
    expect(kvView(st.range(rangeReq('k')).kvs[0]!)).toEqual({ key: 'k', value: 'v', create: 2, mod: 3, version: 2 });
    st.put(putReq('k', 'w', { lease: 9n })); // 4
    st.put(putReq('k', 'x', { ignoreLease: true })); // 5
    expect(kvView(st.range(rangeReq('k')).kvs[0]!)).toEqual({ key: 'k', value: 'x', create: 2, mod: 5, version: 4, lease: 9n });
    expect(st.put(putReq('n', 'x', { prevKv: true })).prevKv).toBeUndefined();
  });

  it.each([{ ignoreValue: true }, { ignoreLease: true }])('%o on a missing key fails with key not found and writes nothing', (flags) => {
    const st = new MvccStore();
    expect(() => st.put(putReq('missing', '', flags))).toThrow('etcdserver: key not found');
    expect(st.currentRevision).toBe(1);
  });

  it('checks lease existence through the lease hooks', () => {
    const st = new MvccStore();
    const attached: string[] = [];
    st.leases = {
      exists: (id) => id === 5n,
      attach: (id, key) => attached.push(`+${id}:${s(key)}`),
      detach: (id, key) => attached.push(`-${id}:${s(key)}`),
    };
    expect(() => st.put(putReq('a', '1', { lease: 6n }))).toThrow('etcdserver: requested lease not found');
    st.put(putReq('a', '1', { lease: 5n }));
    st.put(putReq('a', '2'));
    st.put(putReq('b', '1', { lease: 5n }));
    st.deleteRange(delReq('b'));
    expect(attached).toEqual(['+5:a', '-5:a', '+5:b', '-5:b']);
    expect(st.currentRevision).toBe(5);
  });

  it('deleteRange returns prevKvs and the count', () => {
    const st = new MvccStore();
    for (const k of ['a', 'b', 'c', 'd']) st.put(putReq(k, k.toUpperCase()));
    const r = st.deleteRange(delReq('b', 'd', { prevKv: true }));
    expect(r.deleted).toBe(2);
    expect(r.revision).toBe(6);
    expect(r.prevKvs.map(kvView)).toEqual([
      { key: 'b', value: 'B', create: 3, mod: 3, version: 1 },
      { key: 'c', value: 'C', create: 4, mod: 4, version: 1 },
    ]);
    expect(dump(st)).toEqual(['a=A', 'd=D']);
    // from-key delete ("\0" range end)
    expect(st.deleteRange(delReq('b', '\0')).deleted).toBe(1);
    expect(dump(st)).toEqual(['a=A']);
  });

  it('does not keep references to the caller buffers', () => {
    const st = new MvccStore();
    const req = putReq('key', 'value');
    st.put(req);
    req.key[0] = 0x7a;
    req.value[0] = 0x7a;
    expect(dump(st)).toEqual(['key=value']);
  });
});

describe('MvccStore events', () => {
  function view(e: MvccEvent) {
    return { type: e.type, kv: kvView(e.kv), prev: e.prevKv ? kvView(e.prevKv) : undefined };
  }

  it('reports each changing write once, with its revision and events', () => {
    const st = new MvccStore();
    const seen: { rev: number; events: ReturnType<typeof view>[] }[] = [];
    st.onEvents = (rev, events) => seen.push({ rev, events: events.map(view) });
    st.put(putReq('a', '1')); // 2
    st.put(putReq('a', '2')); // 3
    st.deleteRange(delReq('zzz')); // nothing
    st.txn(txnReq([], [op.del('a'), op.put('b', '1')])); // 4
    st.range(rangeReq('a'));
    expect(seen).toEqual([
      { rev: 2, events: [{ type: EventType.Put, kv: { key: 'a', value: '1', create: 2, mod: 2, version: 1 }, prev: undefined }] },
      {
        rev: 3,
        events: [
          {
            type: EventType.Put,
            kv: { key: 'a', value: '2', create: 2, mod: 3, version: 2 },
            prev: { key: 'a', value: '1', create: 2, mod: 2, version: 1 },
          },
        ],
      },
      {
        rev: 4,
        events: [
          { type: EventType.Delete, kv: { key: 'a', value: '', create: 0, mod: 4, version: 0 }, prev: { key: 'a', value: '2', create: 2, mod: 3, version: 2 } },
          { type: EventType.Put, kv: { key: 'b', value: '1', create: 4, mod: 4, version: 1 }, prev: undefined },
        ],
      },
    ]);
  });

  it('replays history by revision for watchers', () => {
    const st = new MvccStore();
    st.put(putReq('a', '1')); // 2
    st.txn(txnReq([], [op.put('a', '2'), op.put('b', '1')])); // 3
    st.deleteRange(delReq('a')); // 4
    const hist = st.eventsBetween(3, 0, 10).map((g) => ({ rev: g.revision, events: g.events.map(view) }));
    expect(hist.map((h) => [h.rev, h.events.map((e) => `${e.type}:${e.kv.key}=${e.kv.value}<${e.prev?.value ?? '-'}`)])).toEqual([
      [3, ['0:a=2<1', '0:b=1<-']],
      [4, ['1:a=<2']],
    ]);
    expect(st.eventsBetween(2, 3, 10).map((g) => g.revision)).toEqual([2, 3]);
    expect(st.eventsBetween(2, 0, 1).map((g) => g.revision)).toEqual([2]);
    st.compact(3);
    expect(() => st.eventsBetween(2, 0, 10)).toThrow('required revision has been compacted');
    expect(st.eventsBetween(3, 0, 10).map((g) => g.revision)).toEqual([3, 4]);
  });
});

describe('MvccStore sizes', () => {
  it('counts retained and live bytes', () => {
    const st = new MvccStore();
    expect(st.sizes()).toEqual({ dbSize: 0, dbSizeInUse: 0 });
    st.put(putReq('a', 'x'.repeat(100)));
    const one = st.sizes();
    expect(one.dbSize).toBe(one.dbSizeInUse);
    expect(one.dbSize).toBeGreaterThan(100);
    st.put(putReq('a', 'y'.repeat(100)));
    const two = st.sizes();
    expect(two.dbSize).toBe(2 * one.dbSize);
    expect(two.dbSizeInUse).toBe(one.dbSizeInUse);
    st.deleteRange(delReq('a'));
    expect(st.sizes().dbSizeInUse).toBe(0);
    st.compact(st.currentRevision);
    expect(st.sizes()).toEqual({ dbSize: 0, dbSizeInUse: 0 });
  });
});
