// Values recorded from the real etcd 3.4.23 (Debian's /usr/bin/etcd, one
// member on 127.0.0.1, driven with `etcdctl -w json`); the same history fed
// to our store must give the same revisions, read results and HashKV hashes.

import { describe, expect, it } from 'vitest';
import { CompareResult, CompareTarget, MvccStore } from '../../../../main/etcd/mvcc/index';
import { cmp, delReq, kvView, op, putReq, rangeReq, txnReq } from './helpers';

describe('parity with etcd 3.4.23', () => {
  it('replays a recorded session', () => {
    const st = new MvccStore();
    expect(st.put(putReq('a', '1')).revision).toBe(2);
    expect(st.put(putReq('b', '2')).revision).toBe(3);
    expect(st.put(putReq('a', '3')).revision).toBe(4);
    expect(st.deleteRange(delReq('a'))).toEqual({ deleted: 1, prevKvs: [], revision: 5 });
    expect(st.deleteRange(delReq('zzz'))).toEqual({ deleted: 0, prevKvs: [], revision: 5 });
    // etcdctl endpoint hashkv → hash 1346927904, compact_revision -1
    expect(st.hashKV(0)).toEqual({ hash: 1346927904, compactRevision: -1, revision: 5 });
    // etcdctl get a --rev=3 → header revision 5 (current), a=1 create 2 mod 2 version 1
    const old = st.range(rangeReq('a', { revision: 3 }));
    expect({ rev: old.revision, count: old.count, kvs: old.kvs.map(kvView) }).toEqual({
      rev: 5,
      count: 1,
      kvs: [{ key: 'a', value: '1', create: 2, mod: 2, version: 1 }],
    });
    st.compact(4);
    // after `etcdctl compact 4`: hash 2051293682, compact_revision 4
    expect(st.hashKV(0)).toEqual({ hash: 2051293682, compactRevision: 4, revision: 5 });
    expect(() => st.range(rangeReq('a', { revision: 3 }))).toThrow('etcdserver: mvcc: required revision has been compacted');
    expect(st.range(rangeReq('b', { revision: 4 })).kvs.map(kvView)).toEqual([{ key: 'b', value: '2', create: 3, mod: 3, version: 1 }]);

    // txn: mod("b") = "3" → put x 1, put y 2, del b; every sub-response at revision 6
    const t = st.txn(txnReq([cmp('b', CompareTarget.Mod, CompareResult.Equal, { mod: 3 })], [op.put('x', '1'), op.put('y', '2'), op.del('b')], [op.put('z', '0')]));
    expect(t.succeeded).toBe(true);
    expect(t.revision).toBe(6);
    expect(t.responses).toEqual([{ put: { revision: 6 } }, { put: { revision: 6 } }, { deleteRange: { deleted: 1, prevKvs: [], revision: 6 } }]);
    expect(st.hashKV(0)).toEqual({ hash: 1635377091, compactRevision: 4, revision: 6 });

    st.put(putReq('big', 'v'.repeat(300)));
    expect(st.hashKV(0)).toEqual({ hash: 2150970925, compactRevision: 4, revision: 7 });
    // a hash at an older revision ignores the newer writes
    expect(st.hashKV(5).hash).toBe(2051293682);
    expect(st.range(rangeReq('x')).kvs.map(kvView)).toEqual([{ key: 'x', value: '1', create: 6, mod: 6, version: 1 }]);
  });
});
