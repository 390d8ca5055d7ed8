// One long-lived client stream to one peer (etcd rafthttp's streamWriter).
//
// States:
//   open     a call exists (connecting or accepted); messages queue and are
//            written one batch at a time: whatever queued while the previous
//            write was in flight goes out as the next batch.
//   backoff  the call ended; a timer reopens it (100 ms doubling to 2 s).
//            Messages sent meanwhile are dropped and reported: Raft retries,
//            and a queue that grows while a peer is down only replays stale
//            heartbeats when it returns.
//   stopped  for good.
//
// Every callback of a call carries the generation it was opened in, so a
// late event from an abandoned call never touches its successor.

import type { ClientWritableStream, ServiceError } from '@grpc/grpc-js';
import type { Message } from '../../raft/types';
import { Backoff } from './backoff';
import { BATCH_BYTES_SOFT_LIMIT } from './peerProtocol';
import { encodeBatch } from './raftpbCodec';

export type StreamType = 'message' | 'app';

/** etcd rafthttp streamBufSize: messages that may wait on one stream. */
export const STREAM_QUEUE_LIMIT = 4096;

export interface OutboundStreamHost {
  /** Starts the call on the peer's current URL; `onEnd` fires once when it ends. */
  openCall(type: StreamType, onEnd: (err: ServiceError | null) => void): ClientWritableStream<Uint8Array>;
  /** The receiver accepted the stream. */
  accepted(type: StreamType): void;
  /** A batch of `bytes` was handed to the connection. */
  wrote(type: StreamType, bytes: number): void;
  /** The call ended; `lost` messages were queued or in flight. */
  ended(type: StreamType, err: ServiceError | null, wasAccepted: boolean, lost: number): void;
}

type State = 'open' | 'backoff' | 'stopped';

function approxSize(m: Message): number {
  let n = 64;
  for (const e of m.entries) n += e.data.byteLength + 24;
  if (m.context) n += m.context.byteLength;
  return n;
}

export class OutboundStream {
  private state: State = 'stopped';
  private queue: Message[] = [];
  private call: ClientWritableStream<Uint8Array> | undefined;
  private inflight = 0;
  private accepted = false;
  private generation = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly backoff = new Backoff();

  constructor(
    readonly type: StreamType,
    private readonly host: OutboundStreamHost,
  ) {}

  /** Opens the call now (also after updatePeer), forgetting any backoff. */
  restart(): void {
    this.close();
    this.backoff.reset();
    this.open();
  }

  stop(): void {
    this.close();
    this.state = 'stopped';
  }

  get isAccepted(): boolean {
    return this.state === 'open' && this.accepted;
  }

  get inBackoff(): boolean {
    return this.state === 'backoff';
  }

  get queued(): number {
    return this.queue.length;
  }

  /** False when the message was dropped (peer in backoff, or queue full). */
  enqueue(m: Message): boolean {
    if (this.state !== 'open' || this.queue.length >= STREAM_QUEUE_LIMIT) return false;
    this.queue.push(m);
    return true;
  }

  /** Writes the queue if no write is in flight; otherwise the write's completion will. */
  flush(): void {
    const call = this.call;
    if (this.state !== 'open' || !call || this.inflight > 0 || this.queue.length === 0) return;
    let take = 0;
    let bytes = 0;
    while (take < this.queue.length && (take === 0 || bytes < BATCH_BYTES_SOFT_LIMIT)) {
      bytes += approxSize(this.queue[take]!);
      take++;
    }
    const batch = take === this.queue.length ? this.queue : this.queue.slice(0, take);
    this.queue = take === this.queue.length ? [] : this.queue.slice(take);
    const gen = this.generation;
    this.inflight = batch.length;
    const encoded = encodeBatch(batch);
    call.write(encoded, (err?: Error | null) => {
      if (gen !== this.generation || err) return; // the call's end reports the loss
      this.inflight = 0;
      this.host.wrote(this.type, encoded.byteLength);
      this.flush();
    });
  }

  private open(): void {
    const gen = ++this.generation;
    this.state = 'open';
    this.accepted = false;
    this.inflight = 0;
    const call = this.host.openCall(this.type, (err) => {
      if (gen === this.generation) this.onEnd(err);
    });
    call.on('metadata', () => {
      if (gen !== this.generation) return;
      this.accepted = true;
      this.backoff.reset();
      this.host.accepted(this.type);
    });
    // Write-after-end and similar stream errors also arrive as the call's
    // status; without a listener they would be thrown.
    call.on('error', () => {});
    this.call = call;
    this.flush();
  }

  private onEnd(err: ServiceError | null): void {
    const lost = this.queue.length + this.inflight;
    const wasAccepted = this.accepted;
    this.generation++;
    this.call = undefined;
    this.queue = [];
    this.inflight = 0;
    this.accepted = false;
    this.state = 'backoff';
    this.host.ended(this.type, err, wasAccepted, lost);
    if (this.state !== 'backoff') return; // the host restarted or stopped us
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.state === 'backoff') this.open();
    }, this.backoff.next());
  }

  private close(): void {
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const call = this.call;
    this.call = undefined;
    this.queue = [];
    this.inflight = 0;
    this.accepted = false;
    call?.cancel();
  }
}
