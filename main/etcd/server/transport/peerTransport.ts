// The member's Raft transport (etcd rafthttp.Transport): a PeerServer that
// receives, and a RemotePeer per other member that sends. The member server
// calls send() with each Ready's messages and gets received messages through
// onMessage; failures come back as onUnreachable / onSnapshotStatus, which
// it passes to raft.reportUnreachable / raft.reportSnapshot.
//
// Nothing here waits: send() only enqueues and starts writes, so messages
// leave on the same turn of the event loop the server hands them over.

import type { Registry } from 'prom-client';
import type { MemberId, Message } from '../../raft/types';
import { PeerMetrics } from './peerMetrics';
import { PeerServer } from './peerServer';
import { idToHex } from './peerProtocol';
import type { PeerTlsOptions } from './peerUrls';
import { RemotePeer } from './remotePeer';
import type { ClusterView } from './clusterMembers';

export interface PeerTransportOptions {
  localId: MemberId;
  clusterId: bigint;
  /** Peer listen URLs (http://host:port; https:// with `tls`). Port 0 binds any free port. */
  listenUrls: string[];
  /** Called for each received message, in order per sender and stream (see index.ts). */
  onMessage(m: Message): void;
  /** A send to this peer failed or was dropped (the server calls raft.reportUnreachable). */
  onUnreachable?(id: MemberId): void;
  /** After a MsgSnap was (not) delivered (the server calls raft.reportSnapshot). */
  onSnapshotStatus?(id: MemberId, ok: boolean): void;
  log?(line: string): void;
  /** Peer TLS (--peer-cert-file, --peer-key-file, --peer-trusted-ca-file, --peer-client-cert-auth). */
  tls?: PeerTlsOptions;
  /** Where etcd's etcd_network_* peer metrics go (the member's /metrics registry). */
  metrics?: Registry;
  /** What Peer.Members answers (clusterMembers.ts): the cluster id and the applied membership. */
  clusterView?(): ClusterView;
  /** A removed member's calls are refused (etcd: 410 Gone). */
  isRemoved?(id: MemberId): boolean;
  /** A peer refused us as removed: this member must stop (etcd: errMemberRemoved). */
  onRemovedFromCluster?(): void;
  /** The largest append message a member sends: raft's max size per message plus max-request-bytes (default: 1 MiB + 1.5 MiB). */
  maxAppendBytes?: number;
}

const DEFAULT_MAX_APPEND_BYTES = 1024 * 1024 + 1.5 * 1024 * 1024;

export class PeerTransport {
  private readonly peers = new Map<MemberId, RemotePeer>();
  /** Last inbound message time per sender, kept even for members not (yet) added. */
  private readonly heard = new Map<MemberId, number>();
  private readonly server: PeerServer;
  private readonly log: (line: string) => void;
  private readonly metrics: PeerMetrics;
  /** Peers with an unreachable report due; reported once per microtask turn. */
  private readonly unreachableDue = new Set<MemberId>();
  private running = false;
  private stopped = false;

  constructor(private readonly opts: PeerTransportOptions) {
    this.log = opts.log ?? (() => {});
    this.metrics = new PeerMetrics(opts.localId, opts.metrics);
    this.server = new PeerServer({
      metrics: this.metrics,
      localId: opts.localId,
      clusterId: opts.clusterId,
      listenUrls: opts.listenUrls,
      tls: opts.tls,
      log: this.log,
      deliver: (from, m) => this.deliver(from, m),
      maxAppendBytes: opts.maxAppendBytes ?? DEFAULT_MAX_APPEND_BYTES,
      ...(opts.clusterView && { clusterView: opts.clusterView }),
      ...(opts.isRemoved && { isRemoved: opts.isRemoved }),
    });
  }

  get boundPorts(): number[] {
    return this.server.boundPorts;
  }

  async start(): Promise<void> {
    if (this.stopped) throw new Error('peer transport already stopped');
    try {
      await this.server.start();
    } catch (e) {
      this.server.stop();
      throw e;
    }
    this.running = true;
    for (const p of this.peers.values()) p.start();
  }

  /** Adds (or, if known, re-points) a member; its streams open at once (or at start()). Bad URLs are logged, never thrown. */
  addPeer(id: MemberId, urls: string[]): void {
    if (this.stopped || id === this.opts.localId) return;
    if (this.peers.has(id)) {
      this.updatePeer(id, urls);
      return;
    }
    let peer: RemotePeer;
    try {
      peer = this.newPeer(id, urls);
    } catch (e) {
      this.log(`cannot add peer ${idToHex(id)}: ${(e as Error).message}`);
      return;
    }
    this.peers.set(id, peer);
    if (this.running) peer.start();
  }

  private newPeer(id: MemberId, urls: string[]): RemotePeer {
    return new RemotePeer(id, urls, {
      localId: this.opts.localId,
      clusterId: this.opts.clusterId,
      tls: this.opts.tls,
      metrics: this.metrics,
      log: this.log,
      unreachable: (pid) => this.reportUnreachable(pid),
      snapshotStatus: (pid, ok) => this.opts.onSnapshotStatus?.(pid, ok),
      removedFromCluster: () => this.opts.onRemovedFromCluster?.(),
    });
  }

  updatePeer(id: MemberId, urls: string[]): void {
    const peer = this.peers.get(id);
    if (!peer) {
      this.addPeer(id, urls);
      return;
    }
    try {
      peer.update(urls, this.running);
    } catch (e) {
      this.log(`cannot update peer ${idToHex(id)}: ${(e as Error).message}; keeping its old URLs`);
    }
  }

  removePeer(id: MemberId): void {
    const peer = this.peers.get(id);
    if (!peer) return;
    peer.stop();
    this.peers.delete(id);
    this.heard.delete(id);
  }

  /** Never blocks or throws. Messages to unknown members (or before start) are dropped. */
  send(msgs: readonly Message[]): void {
    if (this.stopped) return;
    const touched = new Set<RemotePeer>();
    for (const m of msgs) {
      const peer = this.peers.get(m.to);
      if (!peer) {
        if (m.to !== this.opts.localId) this.log(`ignored message send request; unknown remote peer target ${idToHex(m.to)}`);
        continue;
      }
      if (!this.running) {
        this.reportUnreachable(m.to);
        continue;
      }
      peer.enqueue(m);
      touched.add(peer);
    }
    for (const p of touched) p.flush();
  }

  /** When we last heard from / successfully reached this peer (ms since epoch, 0 = never). */
  activeSince(id: MemberId): number {
    return Math.max(this.peers.get(id)?.lastActive ?? 0, this.heard.get(id) ?? 0);
  }

  /** True while this member's message stream to the peer is up. */
  isConnected(id: MemberId): boolean {
    return this.peers.get(id)?.connected ?? false;
  }

  /** Messages waiting in this peer's outbound queues (for metrics and tests). */
  queuedFor(id: MemberId): number {
    return this.peers.get(id)?.queued ?? 0;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.running = false;
    for (const p of this.peers.values()) p.stop();
    this.peers.clear();
    this.server.stop();
  }

  /**
   * Reports reach the server after the current call returns (as etcd's
   * ReportUnreachable goes through a channel): send() is called in the
   * middle of a Ready cycle, and a thousand drops make one report.
   */
  private reportUnreachable(id: MemberId): void {
    if (!this.opts.onUnreachable || this.unreachableDue.has(id)) return;
    if (this.unreachableDue.size === 0) queueMicrotask(() => this.flushUnreachable());
    this.unreachableDue.add(id);
  }

  private flushUnreachable(): void {
    const ids = [...this.unreachableDue];
    this.unreachableDue.clear();
    if (this.stopped) return;
    for (const id of ids) {
      try {
        this.opts.onUnreachable?.(id);
      } catch (e) {
        this.log(`unreachable handler failed for ${idToHex(id)}: ${(e as Error).message}`);
      }
    }
  }

  private deliver(from: MemberId, m: Message): void {
    if (this.stopped) return;
    this.heard.set(from, Date.now());
    this.peers.get(from)?.wake();
    try {
      this.opts.onMessage(m);
    } catch (e) {
      this.log(`raft message handler failed on ${m.type} from ${idToHex(from)}: ${(e as Error).message}`);
    }
  }
}
