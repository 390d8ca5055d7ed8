import { describe, expect, it } from 'vitest';
import { MvccStore, SortOrder, SortTarget, type RangeRequest } from '../../../../main/etcd/mvcc/index';
import { putReq, rangeReq, s } from './helpers';

// Revisions: a=2 (v1), b=3, c=4, a=5 (v2), d=6, c=7 (v2), c=8 (v3); values chosen to sort differently from keys.
function fixture(): MvccStore {
  const st = new MvccStore();
  const writes: [string, string][] = [
    ['a', 'z'],
    ['b', 'y'],
    ['c', 'x'],
    ['a', 'w'],
    ['d', 'v'],
    ['c', 'u'],
    ['c', 't'],
  ];
  for (const [k, v] of writes) st.put(putReq(k, v));
  return st;
}

type Want = { keys: string[]; count: number; more?: boolean; values?: string[] };

const cases: { name: string; key: string; req: Partial<RangeRequest> & { end?: string }; want: Want }[] = [
  { name: 'single key', key: 'b', req: {}, want: { keys: ['b'], count: 1 } },
  { name: 'missing key is not an error', key: 'zz', req: {}, want: { keys: [], count: 0 } },
  { name: '[b, d)', key: 'b', req: { end: 'd' }, want: { keys: ['b', 'c'], count: 2 } },
  { name: 'from key ("\\0" end)', key: 'b', req: { end: '\0' }, want: { keys: ['b', 'c', 'd'], count: 3 } },
  { name: 'all keys', key: '\0', req: { end: '\0' }, want: { keys: ['a', 'b', 'c', 'd'], count: 4 } },
  { name: 'end before key is empty', key: 'c', req: { end: 'b' }, want: { keys: [], count: 0 } },
  { name: 'limit sets more, count is the whole range', key: 'a', req: { end: '\0', limit: 2 }, want: { keys: ['a', 'b'], count: 4, more: true } },
  { name: 'limit equal to size has no more', key: 'a', req: { end: '\0', limit: 4 }, want: { keys: ['a', 'b', 'c', 'd'], count: 4 } },
  { name: 'countOnly', key: 'a', req: { end: '\0', countOnly: true }, want: { keys: [], count: 4 } },
  { name: 'keysOnly drops values', key: 'a', req: { end: 'c', keysOnly: true }, want: { keys: ['a', 'b'], count: 2, values: ['', ''] } },
  { name: 'sort key descend', key: 'a', req: { end: '\0', sortOrder: SortOrder.Descend }, want: { keys: ['d', 'c', 'b', 'a'], count: 4 } },
  { name: 'sort value, order NONE means ascend', key: 'a', req: { end: '\0', sortTarget: SortTarget.Value }, want: { keys: ['c', 'd', 'a', 'b'], count: 4 } },
  { name: 'sort version descend, ties in key order', key: 'a', req: { end: '\0', sortTarget: SortTarget.Version, sortOrder: SortOrder.Descend }, want: { keys: ['c', 'a', 'b', 'd'], count: 4 } },
  { name: 'sort create ascend', key: 'a', req: { end: '\0', sortTarget: SortTarget.Create, sortOrder: SortOrder.Ascend }, want: { keys: ['a', 'b', 'c', 'd'], count: 4 } },
  { name: 'sort mod descend with limit', key: 'a', req: { end: '\0', sortTarget: SortTarget.Mod, sortOrder: SortOrder.Descend, limit: 2 }, want: { keys: ['c', 'd'], count: 4, more: true } },
  { name: 'minModRevision', key: 'a', req: { end: '\0', minModRevision: 6 }, want: { keys: ['c', 'd'], count: 4 } },
  { name: 'maxModRevision', key: 'a', req: { end: '\0', maxModRevision: 5 }, want: { keys: ['a', 'b'], count: 4 } },
  { name: 'min/max create revision', key: 'a', req: { end: '\0', minCreateRevision: 3, maxCreateRevision: 4 }, want: { keys: ['b', 'c'], count: 4 } },
  { name: 'filter then limit', key: 'a', req: { end: '\0', minCreateRevision: 3, limit: 1 }, want: { keys: ['b'], count: 4, more: true } },
  { name: 'read at revision 4', key: 'a', req: { end: '\0', revision: 4 }, want: { keys: ['a', 'b', 'c'], count: 3, values: ['z', 'y', 'x'] } },
  { name: 'read at revision 1 sees nothing', key: 'a', req: { end: '\0', revision: 1 }, want: { keys: [], count: 0 } },
];

describe('MvccStore.range', () => {
  it.each(cases)('$name', ({ key, req, want }) => {
    const st = fixture();
    const r = st.range(rangeReq(key, req));
    expect(r.kvs.map((kv) => s(kv.key))).toEqual(want.keys);
    expect(r.count).toBe(want.count);
    expect(r.more).toBe(want.more ?? false);
    // the header revision is the store's current revision, even for older reads
    expect(r.revision).toBe(8);
    if (want.values) expect(r.kvs.map((kv) => s(kv.value))).toEqual(want.values);
  });

  it('rejects a future revision', () => {
    expect(() => fixture().range(rangeReq('a', { revision: 9 }))).toThrow('etcdserver: mvcc: required revision is a future revision');
  });

  it('reads the current revision explicitly', () => {
    expect(fixture().range(rangeReq('c', { revision: 8 })).kvs.map((kv) => s(kv.value))).toEqual(['t']);
  });

  it('handles binary keys in byte order', () => {
    const st = new MvccStore();
    const keys = [new Uint8Array([0xff]), new Uint8Array([0x00, 0x01]), new Uint8Array([0x7f]), new Uint8Array([0x80, 0x00])];
    for (const k of keys) st.put({ ...putReq('', 'v'), key: k });
    const r = st.range({ ...rangeReq(''), key: new Uint8Array([0]), rangeEnd: new Uint8Array([0]) });
    expect(r.kvs.map((kv) => Array.from(kv.key))).toEqual([[0x00, 0x01], [0x7f], [0x80, 0x00], [0xff]]);
  });
});
