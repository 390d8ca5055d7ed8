// The receiving half: a gRPC server on every --listen-peer-urls address
// serving the Peer service. Each call's metadata is checked before a byte of
// it is read (cluster id, then addressee); an accepted stream answers with
// initial metadata at once, which is the sender's signal that it is up.
// Messages are handed on in the order they arrive on each call.

import {
  Metadata,
  Server,
  status,
  type sendUnaryData,
  type ServerReadableStream,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import type { MemberId, Message } from '../../raft/types';
import type { PeerMetrics } from './peerMetrics';
import { EMPTY_ACK, MAX_MESSAGE_BYTES, REMOVED_MEMBER_DETAILS, checkInbound, isRejection, maxStreamMessageBytes, peerServiceDefinition } from './peerProtocol';
import { parsePeerUrl, serverCredentialsFor, type PeerTlsOptions } from './peerUrls';
import { decodeBatch, decodeMessage } from './raftpbCodec';
import { membersHandler, membersMethod, type ClusterView } from './clusterMembers';

export interface PeerServerOptions {
  localId: MemberId;
  clusterId: bigint;
  listenUrls: string[];
  tls?: PeerTlsOptions;
  metrics: PeerMetrics;
  /** One message from `from`; called synchronously, in arrival order. */
  deliver(from: MemberId, m: Message): void;
  log(line: string): void;
  /** True for a member removed from the cluster: its calls are refused with REMOVED_MEMBER_DETAILS. */
  isRemoved?(id: MemberId): boolean;
  /** Answers Peer.Members (a member joining the cluster asks it); absent: UNIMPLEMENTED. */
  clusterView?(): ClusterView;
  /** The largest append message peers send (raft's max size per message plus max-request-bytes). */
  maxAppendBytes: number;
}

const SERVER_OPTIONS = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_concurrent_streams': 0xffffffff,
  'grpc.keepalive_time_ms': 5000,
  'grpc.keepalive_timeout_ms': 5000,
};

export class PeerServer {
  private readonly server = new Server(SERVER_OPTIONS);
  private ports: number[] = [];

  constructor(private readonly opts: PeerServerOptions) {
    const view = opts.clusterView;
    this.server.addService({ ...peerServiceDefinition, Members: membersMethod }, {
      Stream: (call: ServerReadableStream<Buffer, Buffer>, cb: sendUnaryData<Buffer>) => this.onStream(call, cb),
      Snapshot: (call: ServerUnaryCall<Buffer, Buffer>, cb: sendUnaryData<Buffer>) => this.onSnapshot(call, cb),
      Members: view
        ? membersHandler(view)
        : (_call: ServerUnaryCall<Buffer, Buffer>, cb: sendUnaryData<Buffer>) => cb({ code: status.UNIMPLEMENTED, details: 'no cluster view' }),
    });
  }

  get boundPorts(): number[] {
    return [...this.ports];
  }

  /** Binds every listen URL; rejects (and unbinds nothing it could not bind) on the first failure. */
  async start(): Promise<void> {
    for (const url of this.opts.listenUrls) {
      const addr = parsePeerUrl(url);
      const creds = serverCredentialsFor(addr, this.opts.tls);
      const port = await new Promise<number>((resolve, reject) => {
        this.server.bindAsync(addr.target, creds, (err, p) => (err ? reject(new Error(`listen on ${url}: ${err.message}`)) : resolve(p)));
      });
      this.ports.push(port);
      this.opts.log(`listening for peers on ${url.replace(/:0$/, ':' + port)}`);
    }
  }

  /** Closes listeners and cuts every open call: peers' streams end and they back off. */
  stop(): void {
    this.server.forceShutdown();
  }

  private accept(md: Metadata): MemberId | { code: status; details: string } {
    const r = checkInbound(md, this.opts.clusterId, this.opts.localId);
    if (isRejection(r)) {
      this.opts.log(r.log);
      return { code: r.code, details: r.details };
    }
    if (this.opts.isRemoved?.(r.from)) return { code: status.FAILED_PRECONDITION, details: REMOVED_MEMBER_DETAILS };
    return r.from;
  }

  private onStream(call: ServerReadableStream<Buffer, Buffer>, cb: sendUnaryData<Buffer>): void {
    const from = this.accept(call.metadata);
    if (typeof from !== 'bigint') {
      cb(from);
      return;
    }
    call.sendMetadata(new Metadata());
    let done = false;
    const finish = (err: { code: status; details: string } | null): void => {
      if (done) return;
      done = true;
      if (err) cb(err);
      else cb(null, EMPTY_ACK);
    };
    const limit = maxStreamMessageBytes(this.opts.maxAppendBytes);
    call.on('data', (chunk: Buffer) => {
      if (done) return;
      let msgs: Message[];
      this.opts.metrics.received(from, chunk.byteLength);
      if (chunk.byteLength > limit) {
        // No member sends this much on a stream: this call ends, the sender's others go on.
        this.opts.metrics.receiveFailed(from);
        this.opts.log(`refused a ${chunk.byteLength}-byte raft message batch from ${from.toString(16)} (limit ${limit})`);
        finish({ code: status.RESOURCE_EXHAUSTED, details: `message batch larger than ${limit} bytes` });
        return;
      }
      try {
        msgs = decodeBatch(chunk);
      } catch (e) {
        this.opts.metrics.receiveFailed(from);
        this.opts.log(`failed to decode raft message batch from ${from.toString(16)}: ${(e as Error).message}`);
        finish({ code: status.INVALID_ARGUMENT, details: 'bad message batch' });
        return;
      }
      for (const m of msgs) this.opts.deliver(from, m);
    });
    call.on('end', () => finish(null));
    // A sender that went away: nothing to answer.
    call.on('error', () => {
      done = true;
    });
  }

  private onSnapshot(call: ServerUnaryCall<Buffer, Buffer>, cb: sendUnaryData<Buffer>): void {
    const from = this.accept(call.metadata);
    if (typeof from !== 'bigint') {
      cb(from);
      return;
    }
    let m: Message;
    this.opts.metrics.received(from, call.request.byteLength);
    try {
      m = decodeMessage(call.request);
    } catch (e) {
      this.opts.metrics.receiveFailed(from);
      this.opts.log(`failed to decode raft snapshot message from ${from.toString(16)}: ${(e as Error).message}`);
      cb({ code: status.INVALID_ARGUMENT, details: 'bad snapshot message' });
      return;
    }
    this.opts.log(`received database snapshot from peer ${from.toString(16)} (index ${m.snapshot?.metadata.index ?? 0}, ${call.request.byteLength} bytes)`);
    this.opts.deliver(from, m);
    cb(null, EMPTY_ACK);
  }
}
