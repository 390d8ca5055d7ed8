// Assembling a running member (etcd: embed.StartEtcd + EtcdServer.Start):
// open the data dir, build Raft on the recovered storage, start the peer
// transport, the Raft loop and its timer, serve clients, and publish this
// member's attributes through Raft. "ready to serve client requests" is
// logged once the publish has been applied, as etcd logs it after
// ReadyNotify.

import { randomInt } from 'node:crypto';
import { RawNode } from '../raft/index';
import { SnapshotStatus, type Logger, type MemberId } from '../raft/types';
import { PeerTransport } from './transport/index';
import { initialMembers, openDataDir } from './dataDir';
import { idToHex } from './ids';
import { Member } from './member';
import { MemberMetrics } from './metrics';
import { RaftLoop, SNAPSHOT_CATCH_UP_ENTRIES } from './raftLoop';
import { StateMachine } from './stateMachine';
import { minLeaseTtl } from '../lease/lessor';
import { EXPIRY_CHECK_MS } from '../lease/leaseRequests';
import type { MemberConfig } from './memberConfig';
import { loadTlsFiles } from './tlsFiles';
import { startAutoCompactor } from './autoCompactor';

/** raft's MaxSizePerMsg for appends, etcd's value (etcdserver/raft.go maxSizePerMsg). */
const MAX_SIZE_PER_MSG = 1024 * 1024;

function raftLogger(log: (line: string) => void): Logger {
  return { debug: () => {}, info: (m) => log(`raft: ${m}`), warn: (m) => log(`raft: ${m}`) };
}

export interface StartMemberOptions {
  /** false: no client gRPC server (in-process use, tests); the member is still fully replicated. */
  serveClients?: boolean;
}

async function serveClients(member: Member, config: MemberConfig): Promise<{ ports: number[]; close(): Promise<void> }> {
  // Loaded on demand so that an in-process member need not load gRPC.
  const { startClientServer } = await import('../api/index');
  const tls = loadTlsFiles(config.clientTls);
  return startClientServer(member, {
    listenUrls: config.listenClientUrls,
    maxRequestBytes: config.maxRequestBytes,
    ...(tls && { tls }),
    ...(config.cors && { cors: config.cors }),
  });
}

/**
 * etcd's adjustTicks (--initial-election-tick-advance, on by default): a
 * starting member fast-forwards its election clock once it can reach a peer,
 * so a fresh cluster elects within a few heartbeats instead of a full
 * randomized election timeout. Leaves two ticks for a live leader's heartbeat
 * to arrive first; PreVote keeps an early campaign from disturbing a leader.
 */
async function advanceElectionTicks(
  loop: RaftLoop,
  transport: PeerTransport,
  config: MemberConfig,
  remotePeers: () => MemberId[],
  stopped: () => boolean,
): Promise<void> {
  const electionTicks = Math.max(2, Math.round(config.electionTimeout / config.heartbeatInterval));
  if (remotePeers().length === 0) {
    for (let i = 0; i < electionTicks - 1; i++) loop.tick();
    return;
  }
  // etcd waits up to rafthttp's 5 s connection read timeout, polling every 50 ms.
  for (let i = 0; i < 100 && !stopped(); i++) {
    await new Promise((r) => setTimeout(r, 50));
    // Like rafthttp's ActivePeers: a peer counts once a stream to it is up.
    if (remotePeers().some((p) => transport.isConnected(p) || transport.activeSince(p) > 0)) {
      for (let t = 0; t < electionTicks - 2; t++) loop.tick();
      return;
    }
  }
}

export async function startMember(config: MemberConfig, options: StartMemberOptions = {}): Promise<Member> {
  const log = config.logger ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const peerTls = loadTlsFiles(config.peerTls);
  const opened = await openDataDir(config, peerTls);
  const { id, clusterId, storage, wal, snapshotter } = opened;
  log(`starting member ${idToHex(id)} in cluster ${idToHex(clusterId)}${opened.bootstrapPeers ? '' : opened.remotes ? ' (joining an existing cluster)' : ' (restart)'}`);

  const metrics = new MemberMetrics();
  const sm = new StateMachine(minLeaseTtl(config.electionTimeout, config.heartbeatInterval));
  const node = new RawNode({
    id,
    electionTick: Math.max(2, Math.round(config.electionTimeout / config.heartbeatInterval)),
    heartbeatTick: 1,
    storage,
    applied: opened.snapshot?.metadata.index ?? 0,
    maxSizePerMsg: MAX_SIZE_PER_MSG,
    maxInflightMsgs: 512,
    checkQuorum: true,
    preVote: true,
    random: (n) => randomInt(n),
    logger: raftLogger(log),
  });
  if (opened.bootstrapPeers) node.bootstrap(opened.bootstrapPeers);

  // The loop and the member refer to each other through these hooks; `member` is set before anything runs.
  let member!: Member;
  let loop!: RaftLoop;
  const transport = new PeerTransport({
    localId: id,
    clusterId,
    listenUrls: config.listenPeerUrls,
    ...(peerTls && { tls: peerTls }),
    // An append carries up to MAX_SIZE_PER_MSG of entries, and always one, which may be max-request-bytes.
    maxAppendBytes: MAX_SIZE_PER_MSG + config.maxRequestBytes,
    onMessage: (m) => loop.step(m),
    onUnreachable: (peer) => node.reportUnreachable(peer),
    onSnapshotStatus: (peer, ok) => {
      node.reportSnapshot(peer, ok ? SnapshotStatus.Finish : SnapshotStatus.Failure);
      loop.kick();
    },
    log,
    clusterView: () => ({ clusterId, members: sm.membership.list() }),
    isRemoved: (peer) => sm.membership.isRemoved(peer),
    onRemovedFromCluster: () => {
      if (member.isStopped) return;
      log('the member has been permanently removed from the cluster');
      void member.stop();
    },
  });
  loop = new RaftLoop({
    localId: id,
    node,
    storage,
    wal,
    snapshotter,
    peers: transport,
    sm,
    snapshotCount: config.snapshotCount,
    snapshotCatchUpEntries: config.snapshotCatchUpEntries ?? SNAPSHOT_CATCH_UP_ENTRIES,
    metrics,
    log,
    hooks: {
      onLeaderChange: (prev, soft) => member.onLeaderChange(prev, soft),
      onReadStates: (states) => member.onReadStates(states),
      onHardState: (hs) => member.onHardState(hs),
      onApplied: (index) => member.onApplied(index),
      onOutcome: (o) => member.onOutcome(o),
      onFatal: (err) => {
        log(`fatal: ${err.stack ?? err.message}`);
        void member.stop();
      },
      // etcd: "the member has been permanently removed from the cluster", and the process exits.
      onRemovedSelf: () => void member.stop(),
    },
  });
  if (opened.snapshot) {
    loop.restoreSnapshot(opened.snapshot);
    log(`recovered store from snapshot at index ${opened.snapshot.metadata.index}`);
  }
  if (opened.bootstrapPeers) {
    for (const m of initialMembers(config)) if (m.id !== id) transport.addPeer(m.id, m.peerUrls);
  }
  // Joining an existing cluster: reach its members until the log (or a snapshot) brings the membership.
  for (const m of opened.remotes ?? []) if (m.id !== id) transport.addPeer(m.id, m.peerUrls);
  member = new Member(config, id, clusterId, loop, sm, metrics, storage.initialState().hardState, log);
  member.isPeerActive = (peer) => transport.isConnected(peer);

  await transport.start();
  // The leader revokes expired leases (etcd's lessor runLoop period).
  const leaseTimer = setInterval(() => member.leaseRequests.revokeExpired(), EXPIRY_CHECK_MS);
  // The leader compacts history (--auto-compaction-*); followers' compactor stays idle.
  const autoCompactor = startAutoCompactor(config, member, sm, loop, log);
  const timer = setInterval(() => {
    loop.tick();
    member.onTimer();
  }, config.heartbeatInterval);
  loop.kick();
  // Replay the committed tail of the WAL before serving, so that even a
  // serializable read after a restart sees everything this member had applied.
  await loop.appliedAtLeast(storage.initialState().hardState.commit);

  const remotePeers = () => sm.membership.list().filter((m) => m.id !== id).map((m) => m.id);
  void advanceElectionTicks(loop, transport, config, remotePeers, () => member.isStopped);

  let client: { ports: number[]; close(): Promise<void> };
  try {
    client = options.serveClients === false ? { ports: [], close: async () => {} } : await serveClients(member, config);
  } catch (err) {
    clearInterval(timer);
    clearInterval(leaseTimer);
    autoCompactor?.stop();
    member.stopRequests();
    await loop.stop();
    await transport.stop();
    await wal.close();
    throw err;
  }

  const stop = async () => {
    // Ticks keep running during the transfer: Raft needs them to finish it.
    if (await loop.transferLeadership(2 * config.electionTimeout)) log('leadership transferred before stopping');
    clearInterval(timer);
    clearInterval(leaseTimer);
    autoCompactor?.stop();
    member.stopRequests();
    await client.close();
    await loop.stop();
    await transport.stop();
    await wal.close();
    log(`stopped member ${idToHex(id)}`);
  };
  const ready = member.publish().then(() => {
    if (!member.isStopped) log('ready to serve client requests');
  });
  member.setLifecycle(stop, ready, client.ports, transport.boundPorts);
  return member;
}
