// The member's lease requests over a fake member view: who answers
// keep-alive/time-to-live (leader, or forward to its URLs), the waits (no
// leader yet, lessor not yet promoted, expired lease awaiting its revoke),
// grant's id choice and the leader's expiry round.

import { describe, expect, it } from 'vitest';
import { Lessor } from '../../../../main/etcd/lease/index';
import { LeaseRequests, type LeaseMemberView } from '../../../../main/etcd/lease/leaseRequests';

type Proposal = Parameters<LeaseMemberView['propose']>[0];

function fakeMember(over: Partial<LeaseMemberView> & { clock?: { now: number } } = {}) {
  const clock = over.clock ?? { now: 1_000_000 };
  const lessor = new Lessor(2);
  const proposals: Proposal[] = [];
  let nextId = 0x1234_0000_0000_0000n;
  const view: LeaseMemberView = {
    lessor: () => lessor,
    isLeader: () => true,
    lead: () => 1n,
    leaderClientUrls: () => ['http://127.0.0.1:2379'],
    propose: async (body) => {
      proposals.push(body);
      if ('leaseGrant' in body) return { id: body.leaseGrant.id, ttl: body.leaseGrant.ttl };
      return undefined;
    },
    nextRequestId: () => nextId++,
    appliedAll: async () => {},
    isStopped: () => false,
    electionTimeoutMs: 1000,
    requestTimeoutMs: 300,
    now: () => clock.now,
    log: () => {},
    ...over,
  };
  return { view, lessor, proposals, clock, requests: new LeaseRequests(view) };
}

describe('LeaseRequests', () => {
  it('grant picks a positive 63-bit id for id 0 and keeps a given one', async () => {
    const { requests, proposals } = fakeMember({ nextRequestId: () => 0xf000_0000_0000_0001n });
    expect((await requests.grant(0n, 5)).id).toBe(0x7000_0000_0000_0001n);
    expect((await requests.grant(42n, 5)).id).toBe(42n);
    expect(proposals).toEqual([{ leaseGrant: { id: 0x7000_0000_0000_0001n, ttl: 5 } }, { leaseGrant: { id: 42n, ttl: 5 } }]);
  });

  it('the leader answers keep-alive and time-to-live itself; unknown leases answer null', async () => {
    const { requests, lessor, clock } = fakeMember();
    lessor.promote(1000, clock.now);
    lessor.grant(7n, 10, clock.now);
    lessor.hooks.attach(7n, new TextEncoder().encode('k'));
    clock.now += 4_500;
    expect(await requests.timeToLive(7n, true)).toEqual({
      value: { id: 7n, ttl: 5, grantedTtl: 10, keys: [new TextEncoder().encode('k')] },
    });
    expect(await requests.keepAlive(7n)).toEqual({ value: 10 });
    expect(await requests.timeToLive(7n, false)).toEqual({ value: { id: 7n, ttl: 10, grantedTtl: 10, keys: [] } });
    expect(await requests.keepAlive(8n)).toEqual({ value: null });
    expect(await requests.timeToLive(8n, false)).toEqual({ value: null });
  });

  it('a follower points at the leader, and waits while no leader is known', async () => {
    let lead = 0n;
    const { requests } = fakeMember({ isLeader: () => false, lead: () => lead, leaderClientUrls: (l) => [`http://leader-${l}:2379`] });
    setTimeout(() => (lead = 3n), 80);
    expect(await requests.keepAlive(7n)).toEqual({ forwardTo: ['http://leader-3:2379'] });
  });

  it('no leader for the whole request timeout is "no leader"', async () => {
    const clock = { now: 0 };
    const { requests } = fakeMember({ clock, isLeader: () => false, lead: () => 0n });
    const timer = setInterval(() => (clock.now += 100), 10);
    await expect(requests.keepAlive(7n)).rejects.toThrow('etcdserver: no leader');
    clearInterval(timer);
  });

  it('a new leader whose lessor is not promoted yet waits for the promotion', async () => {
    const { requests, lessor, clock } = fakeMember();
    lessor.grant(7n, 10, clock.now);
    setTimeout(() => requests.onTermEntry(), 80);
    expect(await requests.keepAlive(7n)).toEqual({ value: 10 });
    expect(lessor.isPrimary).toBe(true);
  });

  it('an expired lease is not renewed: the keep-alive waits for its revocation', async () => {
    const { requests, lessor, clock } = fakeMember();
    lessor.promote(0, clock.now);
    lessor.grant(7n, 2, clock.now);
    clock.now += 2_000;
    setTimeout(() => lessor.revoke(7n, () => {}), 80);
    expect(await requests.keepAlive(7n)).toEqual({ value: null });
  });

  it('the leader proposes a revoke per expired lease; a member that no longer leads demotes', () => {
    let leads = true;
    const { requests, lessor, clock, proposals } = fakeMember({ isLeader: () => leads });
    lessor.grant(1n, 5, clock.now);
    lessor.grant(2n, 50, clock.now);
    requests.onTermEntry();
    clock.now += 6_000;
    requests.revokeExpired();
    requests.revokeExpired(); // already in flight: not proposed twice
    expect(proposals).toEqual([{ leaseRevoke: { id: 1n } }]);
    leads = false;
    requests.revokeExpired();
    expect(lessor.isPrimary).toBe(false);
    requests.onTermEntry(); // a follower applying a term entry does not promote
    expect(lessor.isPrimary).toBe(false);
  });
});
