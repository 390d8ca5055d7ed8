// Everything this member keeps for one other member (etcd rafthttp's peer):
// a gRPC channel to one of its URLs, two outbound streams ("message" for
// heartbeats, votes and responses; "app" for MsgApp, so a heartbeat never
// waits behind a megabyte of entries) and one-shot snapshot calls.
//
// When a stream cannot reach the peer the next attempt uses the peer's next
// URL (etcd's urlPicker), so a member with several peer URLs stays reachable
// while any one of them answers.

import { Client, status, type ServiceError } from '@grpc/grpc-js';
import type { MemberId, Message } from '../../raft/types';
import { MessageType } from '../../raft/types';
import { OutboundStream, type StreamType } from './outboundStream';
import type { PeerMetrics } from './peerMetrics';
import {
  MAX_MESSAGE_BYTES,
  SNAPSHOT_PATH,
  STREAM_PATH,
  deserializeBytes,
  idToHex,
  outboundMetadata,
  REMOVED_MEMBER_DETAILS,
  serializeBytes,
} from './peerProtocol';
import { channelFor, parsePeerUrl, type PeerTlsOptions } from './peerUrls';
import { encodeMessage } from './raftpbCodec';

export interface RemotePeerContext {
  localId: MemberId;
  clusterId: bigint;
  tls?: PeerTlsOptions;
  metrics: PeerMetrics;
  unreachable(id: MemberId): void;
  snapshotStatus(id: MemberId, ok: boolean): void;
  log(line: string): void;
  /** The peer refused us as a removed member. */
  removedFromCluster?(): void;
}

const CHANNEL_OPTIONS = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  // The channel's own reconnect pacing, matched to the streams' backoff.
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 2000,
  // Detect a peer that vanished without closing its sockets (a frozen
  // process, a dropped link) within a few election timeouts.
  'grpc.keepalive_time_ms': 5000,
  'grpc.keepalive_timeout_ms': 5000,
  'grpc.keepalive_permit_without_calls': 1,
  // One connection per peer, never shared with another Client.
  'grpc.use_local_subchannel_pool': 1,
};

/** Snapshot calls get a minute plus one second per 5 MiB: long for loopback, bounded for a hung peer. */
function snapshotDeadline(bytes: number): Date {
  return new Date(Date.now() + 60_000 + Math.ceil(bytes / (5 * 1024 * 1024)) * 1000);
}

export class RemotePeer {
  private urls: string[];
  private urlIndex = 0;
  private client: Client | undefined;
  private readonly streams: Record<StreamType, OutboundStream>;
  private readonly snapshotCalls = new Set<{ cancel(): void }>();
  /** ms since epoch of the last sign of life from this peer (0 = none). */
  lastActive = 0;
  private reportedDown = false;
  /** The channel each stream's current call went out on, so two failing streams act once. */
  private readonly callClient: Record<StreamType, Client | undefined> = { message: undefined, app: undefined };
  private lastWake = 0;
  /** Counted in etcd_network_active_peers. */
  private countedActive = false;
  private stopped = false;

  constructor(
    readonly id: MemberId,
    urls: string[],
    private readonly ctx: RemotePeerContext,
  ) {
    this.urls = validUrls(urls);
    const host = {
      openCall: (type: StreamType, onEnd: (err: ServiceError | null) => void) => this.openStream(type, onEnd),
      accepted: (type: StreamType) => this.onAccepted(type),
      wrote: (_type: StreamType, bytes: number) => {
        this.markActive();
        this.ctx.metrics.sent(this.id, bytes);
      },
      ended: (type: StreamType, err: ServiceError | null, wasAccepted: boolean, lost: number) =>
        this.onStreamEnded(type, err, wasAccepted, lost),
    };
    this.streams = { message: new OutboundStream('message', host), app: new OutboundStream('app', host) };
  }

  start(): void {
    this.streams.message.restart();
    this.streams.app.restart();
  }

  /** Queues a message; a full queue or a peer known down drops it and reports unreachable. */
  enqueue(m: Message): void {
    if (m.type === MessageType.Snap) {
      this.sendSnapshot(m);
      return;
    }
    const stream = m.type === MessageType.App ? this.streams.app : this.streams.message;
    if (!stream.enqueue(m)) {
      this.ctx.metrics.sendFailed(this.id);
      this.ctx.unreachable(this.id);
    }
  }

  flush(): void {
    this.streams.message.flush();
    this.streams.app.flush();
  }

  /** New URLs; reopens the streams on them when `reconnect` (the transport is running). */
  update(urls: string[], reconnect: boolean): void {
    const next = validUrls(urls);
    // The same URLs (a learner's promotion re-adds the member): keep the streams up.
    if (next.length === this.urls.length && next.every((u, i) => u === this.urls[i])) return;
    this.urls = next;
    this.urlIndex = 0;
    this.closeClient();
    if (reconnect && !this.stopped) this.start();
  }

  /**
   * We just heard from this peer: if a stream to it is waiting out a backoff,
   * retry now rather than up to 2 s later (a restarted member is reachable
   * the moment it talks to us). At most every 100 ms.
   */
  wake(): void {
    const now = Date.now();
    if (this.stopped || now - this.lastWake < 100) return;
    if (!this.streams.message.inBackoff && !this.streams.app.inBackoff) return;
    this.lastWake = now;
    if (this.streams.message.inBackoff) this.streams.message.restart();
    if (this.streams.app.inBackoff) this.streams.app.restart();
  }

  get connected(): boolean {
    return this.streams.message.isAccepted;
  }

  get queued(): number {
    return this.streams.message.queued + this.streams.app.queued;
  }

  stop(): void {
    this.stopped = true;
    this.streams.message.stop();
    this.streams.app.stop();
    for (const c of this.snapshotCalls) c.cancel();
    this.snapshotCalls.clear();
    this.closeClient();
    if (this.countedActive) this.ctx.metrics.disconnected(this.id);
    this.countedActive = false;
  }

  private currentClient(): Client {
    if (!this.client) {
      const addr = parsePeerUrl(this.urls[this.urlIndex % this.urls.length]!);
      const ch = channelFor(addr, this.ctx.tls);
      this.client = new Client(addr.target, ch.credentials, { ...CHANNEL_OPTIONS, ...ch.options });
    }
    return this.client;
  }

  private closeClient(): void {
    this.client?.close();
    this.client = undefined;
  }

  private metadata(type: string) {
    return outboundMetadata(this.ctx.clusterId, this.ctx.localId, this.id, type);
  }

  private openStream(type: StreamType, onEnd: (err: ServiceError | null) => void) {
    const client = this.currentClient();
    this.callClient[type] = client;
    return client.makeClientStreamRequest<Uint8Array, Buffer>(
      STREAM_PATH,
      serializeBytes,
      deserializeBytes,
      this.metadata(type),
      {},
      (err) => onEnd(err ?? null),
    );
  }

  private markActive(): void {
    this.lastActive = Date.now();
  }

  private onAccepted(type: StreamType): void {
    this.markActive();
    if (type === 'message' && !this.countedActive) {
      this.countedActive = true;
      this.ctx.metrics.connected(this.id);
    }
    if (type === 'message' && this.reportedDown) {
      this.reportedDown = false;
      this.ctx.log(`peer ${idToHex(this.id)} became active`);
    }
  }

  private onStreamEnded(type: StreamType, err: ServiceError | null, wasAccepted: boolean, lost: number): void {
    if (this.stopped) return;
    this.ctx.metrics.sendFailed(this.id, lost);
    if (type === 'message' && this.countedActive) {
      this.countedActive = false;
      this.ctx.metrics.disconnected(this.id);
    }
    this.ctx.unreachable(this.id);
    if (!wasAccepted && this.callClient[type] === this.client) {
      // Could not get through: the next attempt goes to the next URL, on a
      // fresh channel, so that our backoff alone paces retries (a channel in
      // TRANSIENT_FAILURE fails every call until its own backoff expires).
      this.urlIndex = (this.urlIndex + 1) % this.urls.length;
      this.closeClient();
    }
    if (err?.code === status.FAILED_PRECONDITION && err.details === REMOVED_MEMBER_DETAILS) {
      this.ctx.removedFromCluster?.();
    } else if (err?.code === status.FAILED_PRECONDITION) {
      this.ctx.log(`request sent was ignored by remote peer ${idToHex(this.id)} (${type} stream): ${err.details}`);
    } else if (type === 'message' && !this.reportedDown) {
      this.reportedDown = true;
      const why = err ? err.details || status[err.code] : 'stream closed by peer';
      this.ctx.log(`peer ${idToHex(this.id)} became inactive (message send to peer failed): ${why}${lost ? `; dropped ${lost} messages` : ''}`);
    }
  }

  private sendSnapshot(m: Message): void {
    const bytes = encodeMessage(m);
    const size = bytes.byteLength;
    this.ctx.log(`sending database snapshot to peer ${idToHex(this.id)} (index ${m.snapshot?.metadata.index ?? 0}, ${size} bytes)`);
    const call = this.currentClient().makeUnaryRequest<Uint8Array, Buffer>(
      SNAPSHOT_PATH,
      serializeBytes,
      deserializeBytes,
      bytes,
      this.metadata('snapshot'),
      { deadline: snapshotDeadline(size) },
      (err) => {
        this.snapshotCalls.delete(call);
        if (this.stopped) return;
        if (err) {
          this.ctx.log(`failed to send database snapshot to peer ${idToHex(this.id)}: ${err.details || status[err.code]}`);
          this.ctx.metrics.snapshotSent(this.id, false);
          this.ctx.unreachable(this.id);
          this.ctx.snapshotStatus(this.id, false);
          return;
        }
        this.markActive();
        this.ctx.metrics.sent(this.id, size);
        this.ctx.metrics.snapshotSent(this.id, true);
        this.ctx.log(`sent database snapshot to peer ${idToHex(this.id)} (${size} bytes)`);
        this.ctx.snapshotStatus(this.id, true);
      },
    );
    this.snapshotCalls.add(call);
  }
}

function validUrls(urls: string[]): string[] {
  if (urls.length === 0) throw new Error('a peer needs at least one URL');
  for (const u of urls) parsePeerUrl(u); // throws on a bad URL, before anything is sent
  return [...urls];
}
