import { describe, expect, it } from 'vitest';
import { decodeInternalRequest, encodeInternalRequest, type InternalRequest } from '../../../../main/etcd/server/internalRequest';
import { CompareResult, CompareTarget } from '../../../../main/etcd/mvcc/types';
import { putReq, rangeReq, bytes } from './clusterHarness';

const compare = {
  result: CompareResult.Equal,
  target: CompareTarget.Mod,
  key: bytes('k'),
  rangeEnd: new Uint8Array(0),
  version: 0,
  createRevision: 0,
  modRevision: 42,
  value: new Uint8Array(0),
  lease: 0n,
};

const cases: { name: string; req: InternalRequest }[] = [
  { name: 'put with a 64-bit lease', req: { id: 0xfedc_ba98_7654_3210n, put: { ...putReq('a', 'b'), lease: 0x7fff_ffff_ffff_fff1n, prevKv: true } } },
  { name: 'delete range', req: { id: 1n, deleteRange: { key: bytes('a'), rangeEnd: bytes('z'), prevKv: true } } },
  {
    name: 'nested txn',
    req: {
      id: 2n,
      txn: {
        compare: [compare],
        success: [{ put: putReq('x', 'y') }, { range: { ...rangeReq('x'), limit: 5, revision: 9 } }],
        failure: [{ txn: { compare: [], success: [{ deleteRange: { key: bytes('q'), rangeEnd: new Uint8Array(0), prevKv: false } }], failure: [] } }],
      },
    },
  },
  { name: 'compaction', req: { id: 3n, compaction: { revision: 123456, physical: true } } },
  {
    name: 'member attributes',
    req: { id: 4n, memberAttrSet: { memberId: 0xf4fc_a4f4_9bba_5c38n, name: 'm1', clientUrls: ['http://127.0.0.1:2379', 'http://h:1'] } },
  },
];

describe('internal raft request codec', () => {
  it.each(cases)('round-trips $name', ({ req }) => {
    const got = decodeInternalRequest(encodeInternalRequest(req));
    expect(got).toEqual(req);
  });

  it('rejects an entry with no operation', () => {
    expect(() => decodeInternalRequest(new Uint8Array([0x08, 0x01]))).toThrow(/no operation/);
  });
});
