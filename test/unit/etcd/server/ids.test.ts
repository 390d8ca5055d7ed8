import { describe, expect, it } from 'vitest';
import { computeClusterId, computeMemberId, idToHex } from '../../../../main/etcd/server/ids';

// Values read from Debian's etcd 3.4.23 started as:
//   --name rN --initial-cluster r1=http://127.0.0.1:22380,r2=http://127.0.0.1:22382,r3=http://127.0.0.1:22384
//   --initial-cluster-token tok-test
// `etcdctl member list -w json` and `endpoint status -w json` (decimal ids).
const realEtcd = {
  token: 'tok-test',
  members: [
    { peer: 'http://127.0.0.1:22380', id: 449705777085002537n },
    { peer: 'http://127.0.0.1:22382', id: 14377250386322975827n },
    { peer: 'http://127.0.0.1:22384', id: 3417376536607426227n },
  ],
  clusterId: 5870310097784491024n,
};

describe('member and cluster ids', () => {
  it.each(realEtcd.members)('member id for $peer matches etcd 3.4', ({ peer, id }) => {
    expect(computeMemberId([peer], realEtcd.token)).toBe(id);
  });

  it('cluster id matches etcd 3.4 whatever the member order', () => {
    const ids = realEtcd.members.map((m) => m.id);
    expect(computeClusterId(ids)).toBe(realEtcd.clusterId);
    expect(computeClusterId([...ids].reverse())).toBe(realEtcd.clusterId);
  });

  it('sorts peer URLs before hashing', () => {
    const a = computeMemberId(['http://b:1', 'http://a:1'], 't');
    expect(computeMemberId(['http://a:1', 'http://b:1'], 't')).toBe(a);
    expect(computeMemberId(['http://a:1', 'http://b:1'], 'other')).not.toBe(a);
  });

  it('adds the time for runtime-added members', () => {
    const peers = ['http://127.0.0.1:22380'];
    expect(computeMemberId(peers, 'tok-test', 1700000000)).not.toBe(computeMemberId(peers, 'tok-test'));
  });

  it('prints ids as etcd does', () => {
    expect(idToHex(449705777085002537n)).toBe('63dad058897b329');
  });
});
