// Wire ↔ internal conversion, checked through the real protobuf encoding so
// that a 64-bit id that loses a bit on the way shows up.

import { describe, expect, it } from 'vitest';
import {
  headerToWire,
  memberToWire,
  putRequestFromWire,
  rangeRequestFromWire,
  requestOpFromWire,
  statusToWire,
  txnRequestFromWire,
} from '../../../../main/etcd/api/convert';
import { etcdService } from '../../../../main/common/etcdProtos';
import { etcdGrpcDefinition } from '../../../support/etcdGrpc';

const def = etcdGrpcDefinition();
const method = (service: string, name: string) => (def[`etcdserverpb.${service}`] as any)[name];
/** Encodes a response object and decodes it again, as a client sees it. */
function roundTrip(service: string, name: string, res: object): any {
  const m = method(service, name);
  return m.responseDeserialize(m.responseSerialize(res));
}
function decodeRequest(service: string, name: string, req: object): any {
  const m = method(service, name);
  return m.requestDeserialize(m.requestSerialize(req));
}

describe('64-bit ids survive the wire', () => {
  const ids = [0n, 1n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n, 0xbdae9bbc11dd390dn];
  for (const id of ids) {
    it(`member and header ids ${id}`, () => {
      const header = headerToWire({ clusterId: id, memberId: id, revision: 0, raftTerm: 3 }, false);
      const member = memberToWire({ id, name: 'm', peerUrls: ['p'], clientUrls: [], isLearner: false });
      const got = roundTrip('Cluster', 'MemberList', { header, members: [member] });
      expect([got.header.cluster_id, got.header.member_id, got.members[0].ID]).toEqual([`${id}`, `${id}`, `${id}`]);
    });
  }

  it('lease ids in requests are exact bigints', () => {
    const w = decodeRequest('KV', 'Put', { key: Buffer.from('k'), lease: '7587887443342999042' });
    expect(putRequestFromWire(w).lease).toBe(7587887443342999042n);
  });
});

describe('requests', () => {
  it('a decoded RangeRequest maps every field', () => {
    const w = decodeRequest('KV', 'Range', {
      key: Buffer.from('a'),
      range_end: Buffer.from('z'),
      limit: 5,
      revision: 9,
      sort_order: 2,
      sort_target: 3,
      serializable: true,
      keys_only: true,
      count_only: false,
      min_mod_revision: 1,
      max_mod_revision: 8,
      min_create_revision: 2,
      max_create_revision: 7,
    });
    const r = rangeRequestFromWire(w);
    expect({ ...r, key: Buffer.from(r.key).toString(), rangeEnd: Buffer.from(r.rangeEnd).toString() }).toEqual({
      key: 'a',
      rangeEnd: 'z',
      limit: 5,
      revision: 9,
      sortOrder: 2,
      sortTarget: 3,
      serializable: true,
      keysOnly: true,
      countOnly: false,
      minModRevision: 1,
      maxModRevision: 8,
      minCreateRevision: 2,
      maxCreateRevision: 7,
    });
  });

  it('txn compares pick the target_union member and nested ops keep their kind', () => {
    const w = decodeRequest('KV', 'Txn', {
      compare: [{ result: 3, target: 4, key: Buffer.from('k'), lease: '42' }],
      success: [{ request_txn: { success: [{ request_delete_range: { key: Buffer.from('d') } }] } }],
      failure: [{ request_range: { key: Buffer.from('r') } }],
    });
    const t = txnRequestFromWire(w);
    expect([t.compare[0]!.lease, t.compare[0]!.result, t.compare[0]!.target]).toEqual([42n, 3, 4]);
    expect(Object.keys(t.success[0]!)).toEqual(['txn']);
    expect(Object.keys((t.success[0] as { txn: { success: object[] } }).txn.success[0]!)).toEqual(['deleteRange']);
    expect(Object.keys(t.failure[0]!)).toEqual(['range']);
  });

  it('an empty op is etcd’s "key not found"', () => {
    expect(() => requestOpFromWire({})).toThrow('etcdserver: key not found');
  });
});

describe('status', () => {
  const base = {
    version: '3.4.23', dbSize: 1, dbSizeInUse: 1, raftIndex: 1, raftTerm: 1, raftAppliedIndex: 1, isLearner: false,
  };
  const header = { clusterId: 1n, memberId: 2n, revision: 5, raftTerm: 1 };
  const cases = [
    { name: 'leader known, alarms only', leader: 2n, errors: ['memberID:2 alarm:NOSPACE '], want: ['memberID:2 alarm:NOSPACE '] },
    { name: 'no leader comes first', leader: 0n, errors: ['memberID:2 alarm:NOSPACE '], want: ['etcdserver: no leader', 'memberID:2 alarm:NOSPACE '] },
    { name: 'no leader not doubled', leader: 0n, errors: ['etcdserver: no leader'], want: ['etcdserver: no leader'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = roundTrip('Maintenance', 'Status', statusToWire(header, { ...base, leader: c.leader, errors: c.errors }));
      expect({ errors: got.errors, leader: got.leader, revision: got.header.revision }).toEqual({
        errors: c.want,
        leader: `${c.leader}`,
        revision: '5',
      });
    });
  }
});

describe('direct response encoding', () => {
  // etcdService() encodes responses without proto-loader's fromObject copy;
  // the bytes must be exactly what proto-loader would have produced.
  const header = headerToWire({ clusterId: 2n ** 64n - 3n, memberId: 0xbdae9bbc11dd390dn, revision: 77, raftTerm: 9 });
  const kv = { key: Buffer.from('k'), create_revision: 3, mod_revision: 77, version: 2, value: Buffer.from('v'), lease: 0 };
  const cases = [
    { service: 'KV', method: 'Range', res: { header, kvs: [kv, kv], more: true, count: 5 } },
    { service: 'KV', method: 'Put', res: { header, prev_kv: kv } },
    {
      service: 'KV',
      method: 'Txn',
      res: {
        header,
        succeeded: true,
        responses: [
          { response_put: { header: { revision: 77 } } },
          { response_txn: { header: { revision: 77 }, responses: [{ response_range: { header: { revision: 77 }, kvs: [kv], count: 1 } }] } },
        ],
      },
    },
    { service: 'Cluster', method: 'MemberList', res: { header: headerToWire({ clusterId: 1n, memberId: 2n, revision: 0, raftTerm: 1 }, false), members: [memberToWire({ id: 2n ** 63n, name: 'a', peerUrls: ['p'], clientUrls: ['c'], isLearner: true })] } },
  ] as const;
  for (const c of cases) {
    it(`${c.service}.${c.method}`, () => {
      const direct = etcdService(c.service)[c.method]!;
      const viaLoader = method(c.service, c.method);
      expect(Buffer.compare(direct.responseSerialize(c.res), viaLoader.responseSerialize(c.res))).toBe(0);
    });
  }
});
