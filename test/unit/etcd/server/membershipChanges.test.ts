import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfChangeType, type ConfChange, type MemberId } from '../../../../main/etcd/raft/types';
import { assignIds, remotePeerUrls } from '../../../../main/etcd/server/joinCluster';
import { Membership } from '../../../../main/etcd/server/membership';
import {
  checkPeerUrls,
  decodeChangeContext,
  encodeChangeContext,
  learnerReadiness,
  MembershipChanges,
  noOpConfChange,
  PeerActivity,
  readyToAddVoter,
  readyToPromote,
  readyToRemoveVoter,
  replayedConfChange,
  runtimeMemberId,
  validateConfChange,
  type MembershipChangeDeps,
} from '../../../../main/etcd/server/membershipChanges';
import { decodeClusterView, encodeClusterView, fetchClusterView } from '../../../../main/etcd/server/transport/clusterMembers';
import { PeerTransport, type PeerTransportOptions } from '../../../../main/etcd/server/transport/index';
import type { MemberInfo } from '../../../../main/etcd/api/etcdServer';
import type { MemberConfig } from '../../../../main/etcd/server/memberConfig';

const url = (n: number) => `http://10.0.0.${n}:2380`;

/** Three started voters 1, 2, 3 (and whatever `extra` adds). */
function cluster(extra: { id: MemberId; name?: string; learner?: boolean; urls?: string[] }[] = []): Membership {
  const m = new Membership();
  for (const id of [1n, 2n, 3n]) {
    m.add({ id, name: `m${id}`, peerUrls: [url(Number(id))], isLearner: false });
  }
  for (const e of extra) m.add({ id: e.id, name: e.name ?? '', peerUrls: e.urls ?? [url(Number(e.id))], isLearner: e.learner ?? false });
  return m;
}

function cc(type: ConfChangeType, nodeId: MemberId, ctx: { urls?: string[]; learner?: boolean; promote?: boolean } = {}): ConfChange {
  const context = encodeChangeContext({ id: nodeId, name: '', peerUrls: ctx.urls ?? [], isLearner: ctx.learner ?? false, isPromote: ctx.promote });
  return { type, nodeId, context };
}

const msg = (e: Error | undefined) => e?.message;

describe('runtime member ids', () => {
  it("is etcd's sha1(sorted URLs + empty token + unix seconds)[0:8]", () => {
    const urls = ['http://b:2380', 'http://a:2380'];
    const expected = createHash('sha1').update('http://a:2380http://b:23801700000000').digest().readBigUInt64BE(0);
    expect(runtimeMemberId(urls, 1_700_000_000_999)).toBe(expected);
    expect(runtimeMemberId(urls, 1_700_000_000_000)).toBe(expected);
  });

  it('differs a second later, so re-adding the same URLs never reuses an id', () => {
    expect(runtimeMemberId([url(4)], 1_700_000_001_000)).not.toBe(runtimeMemberId([url(4)], 1_700_000_000_000));
  });
});

describe('peer URL syntax (etcd types.NewURLs)', () => {
  it.each([['ftp://a:1'], ['http://a'], ['http://a:1/path'], ['not a url']])('refuses %s', (u) => {
    expect(() => checkPeerUrls([u])).toThrow('etcdserver: given member URLs are invalid');
  });
  it('accepts http and https host:port', () => {
    expect(() => checkPeerUrls(['http://127.0.0.1:2380', 'https://host:1/'])).not.toThrow();
  });
});

describe('ConfChange context', () => {
  it('round-trips the member, the promote flag and the request id', () => {
    const c = { id: 2n ** 63n + 5n, name: 'x', peerUrls: [url(1)], isLearner: true, isPromote: true, requestId: 2n ** 64n - 1n };
    expect(decodeChangeContext(encodeChangeContext(c))).toEqual(c);
  });
});

describe('validateConfChange (apply time, every member)', () => {
  const removed = cluster([{ id: 9n }]);
  removed.remove(9n);
  const withLearner = cluster([{ id: 4n, learner: true }]);
  it.each([
    ['add: new id and URLs', cluster(), cc(ConfChangeType.AddNode, 4n, { urls: [url(4)] }), undefined],
    ['add: id exists', cluster(), cc(ConfChangeType.AddNode, 2n, { urls: [url(8)] }), 'etcdserver: member ID already exist'],
    ['add: peer URL in use', cluster(), cc(ConfChangeType.AddNode, 4n, { urls: [url(2)] }), 'etcdserver: Peer URLs already exists'],
    ['add: removed id', removed, cc(ConfChangeType.AddNode, 9n, { urls: [url(9)] }), 'etcdserver: member not found'],
    ['add learner: first', cluster(), cc(ConfChangeType.AddLearnerNode, 4n, { urls: [url(4)], learner: true }), undefined],
    ['add learner: second', withLearner, cc(ConfChangeType.AddLearnerNode, 5n, { urls: [url(5)], learner: true }), 'etcdserver: too many learner members in cluster'],
    ['promote: learner', withLearner, cc(ConfChangeType.AddNode, 4n, { promote: true }), undefined],
    ['promote: voter', cluster(), cc(ConfChangeType.AddNode, 2n, { promote: true }), 'etcdserver: can only promote a learner member'],
    ['promote: unknown', cluster(), cc(ConfChangeType.AddNode, 7n, { promote: true }), 'etcdserver: member not found'],
    ['remove: member', cluster(), cc(ConfChangeType.RemoveNode, 3n), undefined],
    ['remove: unknown', cluster(), cc(ConfChangeType.RemoveNode, 7n), 'etcdserver: member not found'],
    ['update: own URL kept', cluster(), cc(ConfChangeType.UpdateNode, 2n, { urls: [url(2), url(22)] }), undefined],
    ['update: another member URL', cluster(), cc(ConfChangeType.UpdateNode, 2n, { urls: [url(3)] }), 'etcdserver: Peer URLs already exists'],
    ['update: unknown', cluster(), cc(ConfChangeType.UpdateNode, 7n, { urls: [url(7)] }), 'etcdserver: member not found'],
  ])('%s', (_name, membership, change, expected) => {
    expect(msg(validateConfChange(membership, change))).toBe(expected);
  });

  it('a rejected change reaches Raft as a no-op UpdateNode', () => {
    expect(noOpConfChange(cc(ConfChangeType.RemoveNode, 3n))).toEqual({ type: ConfChangeType.UpdateNode, nodeId: 3n, context: new Uint8Array(0) });
  });

  it('a replayed change reaches Raft only if the membership shows it took effect', () => {
    const m = cluster([{ id: 4n, learner: true }]);
    expect(replayedConfChange(m, cc(ConfChangeType.AddLearnerNode, 4n)).type).toBe(ConfChangeType.AddLearnerNode);
    expect(replayedConfChange(m, cc(ConfChangeType.AddNode, 4n)).type).toBe(ConfChangeType.UpdateNode);
    expect(replayedConfChange(m, cc(ConfChangeType.RemoveNode, 2n)).type).toBe(ConfChangeType.UpdateNode);
    m.remove(2n);
    expect(replayedConfChange(m, cc(ConfChangeType.RemoveNode, 2n)).type).toBe(ConfChangeType.RemoveNode);
  });
});

describe('quorum of started members (etcd RaftCluster.IsReadyTo*)', () => {
  const members = (started: number, unstarted: number): MemberInfo[] => [
    ...Array.from({ length: started }, (_, i) => ({ id: BigInt(i + 1), name: `m${i}`, peerUrls: [], clientUrls: [], isLearner: false })),
    ...Array.from({ length: unstarted }, (_, i) => ({ id: BigInt(100 + i), name: '', peerUrls: [], clientUrls: [], isLearner: false })),
  ];
  it('add a voter', () => {
    expect(readyToAddVoter(members(3, 0))).toBe(true);
    expect(readyToAddVoter(members(1, 0))).toBe(true); // 1 started of 2: etcd's special case
    expect(readyToAddVoter(members(2, 1))).toBe(false); // 2 started of 4
    expect(readyToAddVoter(members(3, 1))).toBe(true); // 3 of 5
  });
  it('remove a voter', () => {
    expect(readyToRemoveVoter(members(3, 0), 1n)).toBe(true);
    expect(readyToRemoveVoter(members(2, 1), 1n)).toBe(false); // 1 started of the 2 left
    expect(readyToRemoveVoter(members(2, 1), 100n)).toBe(true);
  });
  it('promote a learner (counted as a started voter)', () => {
    expect(readyToPromote(members(2, 0))).toBe(true);
    expect(readyToPromote(members(1, 2))).toBe(false); // 2 started of 4
  });
});

describe('learner readiness (leader only)', () => {
  it('needs 90% of the leader match; a follower has no progress', () => {
    const at = (learner: number) => ({ leaderId: 1n, match: new Map<MemberId, number>([[1n, 100], [4n, learner]]) });
    expect(msg(learnerReadiness(at(89), 4n))).toBe('etcdserver: can only promote a learner member which is in sync with leader');
    expect(learnerReadiness(at(90), 4n)).toBeUndefined();
    expect(learnerReadiness(at(10), 7n)).toBeUndefined(); // unknown to raft: the apply decides
    expect(msg(learnerReadiness({ leaderId: 2n, match: new Map() }, 4n))).toBe('etcdserver: not leader');
  });
});

describe('PeerActivity', () => {
  it('remembers when a stream came up and forgets it when it drops', () => {
    const a = new PeerActivity();
    const up = new Set<MemberId>([2n]);
    a.observe([2n, 3n], (id) => up.has(id), 1000);
    a.observe([2n, 3n], (id) => up.has(id), 2000);
    expect(a.activeSince(2n)).toBe(1000);
    expect(a.activeSince(3n)).toBe(0);
    up.delete(2n);
    a.observe([2n, 3n], (id) => up.has(id), 3000);
    expect(a.activeSince(2n)).toBe(0);
  });
});

describe('MembershipChanges (before proposing)', () => {
  function changes(opts: { membership?: Membership; since?: number; leader?: boolean; strict?: boolean; now?: number } = {}) {
    const proposed: ConfChange[] = [];
    const membership = opts.membership ?? cluster();
    const now = opts.now ?? 100_000;
    const deps: MembershipChangeDeps = {
      localId: 1n,
      strict: opts.strict ?? true,
      membership: () => membership,
      activeSince: () => opts.since ?? 1,
      progress: () => ({ leaderId: 1n, match: opts.leader === false ? new Map() : new Map([[1n, 10], [4n, 10]]) }),
      leaderClientUrls: () => ['http://127.0.0.1:2379'],
      nextRequestId: () => 77n,
      now: () => now,
      propose: async (c) => {
        proposed.push(c);
        return membership.list();
      },
    };
    return { c: new MembershipChanges(deps), proposed };
  }

  it('add proposes AddLearnerNode with the member, its time-derived id and the request id', async () => {
    const { c, proposed } = changes({ now: 1_700_000_000_500 });
    const { member } = await c.add([url(4)], true);
    expect(member).toEqual({ id: runtimeMemberId([url(4)], 1_700_000_000_500), name: '', peerUrls: [url(4)], clientUrls: [], isLearner: true });
    expect(proposed[0]!.type).toBe(ConfChangeType.AddLearnerNode);
    expect(proposed[0]!.nodeId).toBe(member.id);
    expect(decodeChangeContext(proposed[0]!.context)).toEqual({ id: member.id, name: '', peerUrls: [url(4)], isLearner: true, requestId: 77n });
  });

  it('strict: refuses a voter when too few members started, and any add while a voter is not connected for 5 s', async () => {
    const unstarted = cluster([{ id: 4n }, { id: 5n }]);
    await expect(changes({ membership: unstarted }).c.add([url(6)], false)).rejects.toThrow(
      'etcdserver: re-configuration failed due to not enough started members',
    );
    await expect(changes({ since: 96_000 }).c.add([url(6)], true)).rejects.toThrow('etcdserver: unhealthy cluster');
    await expect(changes({ since: 0 }).c.add([url(6)], true)).rejects.toThrow('etcdserver: unhealthy cluster');
    await expect(changes({ membership: unstarted, strict: false }).c.add([url(6)], false)).resolves.toBeDefined();
  });

  it('remove: a learner needs no quorum; a voter keeps a started, connected quorum', async () => {
    const { c, proposed } = changes({ membership: cluster([{ id: 4n, learner: true }]), since: 0 });
    await c.remove(4n);
    expect(proposed[0]!.type).toBe(ConfChangeType.RemoveNode);
    // Peers down: removing a connected voter (this member) would leave no quorum.
    await expect(changes({ since: 0 }).c.remove(1n)).rejects.toThrow('etcdserver: unhealthy cluster');
    // A down member is safe to remove.
    await expect(changes({ since: 0 }).c.remove(2n)).resolves.toBeDefined();
    await expect(changes({ membership: cluster([{ id: 4n }, { id: 5n }]) }).c.remove(1n)).rejects.toThrow(
      'etcdserver: re-configuration failed due to not enough started members',
    );
  });

  it('promote: on the leader proposes AddNode marked as a promote; a follower answers with the leader to forward to', async () => {
    const { c, proposed } = changes({ membership: cluster([{ id: 4n, learner: true, name: 'm4' }]) });
    const r = await c.promote(4n);
    expect('value' in r).toBe(true);
    expect(proposed[0]!.type).toBe(ConfChangeType.AddNode);
    expect(decodeChangeContext(proposed[0]!.context)).toMatchObject({ id: 4n, isPromote: true, isLearner: false, peerUrls: [url(4)] });
    expect(await changes({ leader: false }).c.promote(4n)).toEqual({ forwardTo: ['http://127.0.0.1:2379'] });
  });

  it('update proposes UpdateNode with the new URLs; bad URLs are refused first', async () => {
    const { c, proposed } = changes();
    await c.update(2n, [url(22)]);
    expect(proposed[0]!.type).toBe(ConfChangeType.UpdateNode);
    expect(decodeChangeContext(proposed[0]!.context).peerUrls).toEqual([url(22)]);
    await expect(c.update(2n, ['http://nope'])).rejects.toThrow('etcdserver: given member URLs are invalid');
  });
});

describe('joining an existing cluster', () => {
  const config = (initial: [string, string[]][], name = 'm4') => ({ name, initialCluster: new Map(initial) }) as MemberConfig;
  const view = {
    clusterId: 0xabcn,
    members: [
      { id: 0x11n, name: 'm1', peerUrls: [url(1)], clientUrls: ['http://10.0.0.1:2379'], isLearner: false },
      { id: 0x44n, name: '', peerUrls: [url(4)], clientUrls: [], isLearner: true },
    ],
  };

  it('the Peer.Members answer round-trips', () => {
    expect(decodeClusterView(encodeClusterView(view))).toEqual(view);
  });

  it('asks the other members, and takes its id from the member with its peer URLs', () => {
    const c = config([['m1', [url(1)]], ['m4', [url(4)]]]);
    expect(remotePeerUrls(c)).toEqual([url(1)]);
    expect(assignIds(c, view)).toEqual({ id: 0x44n, clusterId: 0xabcn, members: view.members });
  });

  it("fails with etcd's errors when the initial cluster does not match", () => {
    expect(() => assignIds(config([['m4', [url(4)]]]), view)).toThrow(/^error validating peerURLs \{ClusterID:abc .*\}: member count is unequal$/);
    expect(() => assignIds(config([['m1', [url(1)]], ['m4', [url(5)]]]), view)).toThrow(
      /PeerURLs: no match found for existing member \(44, \[http:\/\/10\.0\.0\.4:2380\]\)/,
    );
    expect(() => assignIds(config([['m1', [url(1)]], ['m4', [url(4)]]], 'm9'), view)).toThrow(
      `couldn't find local name "m9" in the initial cluster configuration`,
    );
  });
});

describe('peer transport: removed members and Peer.Members', () => {
  const CLUSTER = 0xc1n;
  const live: PeerTransport[] = [];
  afterEach(async () => {
    await Promise.all(live.splice(0).map((t) => t.stop()));
  });

  async function transport(id: MemberId, opts: Partial<PeerTransportOptions> = {}): Promise<{ t: PeerTransport; url: string }> {
    const t = new PeerTransport({ localId: id, clusterId: CLUSTER, listenUrls: ['http://127.0.0.1:0'], onMessage: () => {}, ...opts });
    live.push(t);
    await t.start();
    return { t, url: `http://127.0.0.1:${t.boundPorts[0]}` };
  }

  it('a member refuses a removed member, which is told so and stops', async () => {
    const a = await transport(1n, { isRemoved: (id) => id === 2n });
    let removed = false;
    const b = await transport(2n, { onRemovedFromCluster: () => (removed = true) });
    b.t.addPeer(1n, [a.url]);
    for (let i = 0; i < 100 && !removed; i++) await new Promise((r) => setTimeout(r, 50));
    expect(removed).toBe(true);
  });

  it('answers Peer.Members with the cluster id and members, no metadata needed', async () => {
    const view = { clusterId: CLUSTER, members: [{ id: 1n, name: 'm1', peerUrls: ['http://x:1'], clientUrls: [], isLearner: false }] };
    const a = await transport(1n, { clusterView: () => view });
    expect(await fetchClusterView(a.url, 2000)).toEqual(view);
    await expect(fetchClusterView('http://127.0.0.1:1', 500)).rejects.toThrow('could not retrieve cluster information from http://127.0.0.1:1');
  });
});
