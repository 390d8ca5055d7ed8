// One resilient etcd watch over a key or prefix: a Watch stream with prev_kv
// and progress_notify, resumed on another endpoint after its member dies or
// the stream breaks, from the revision after the last one it delivered — so
// consumers see every revision once, in order (as long as etcd has not
// compacted past it; then onCompacted ends the watch and the consumer relists).
//
// "Delivered up to" advances on events (their mod_revision) and on progress
// replies (header.revision: etcd promises no events at or below it are still
// to come). A progress reply is any reply with no events that is neither
// `created` nor `canceled` nor a compaction (clientv3 IsProgressNotify); our
// etcd member and etcd 3.4 both answer WatchProgressRequest with watch_id -1.
//
// Before etcd 3.4.31/3.5.13 (Debian's 3.4.23, and our member today) a
// requested progress reply carries the store's current revision even while
// this watcher is still catching up on older events — trusting it then would
// claim events not yet delivered. So after (re)connecting from a revision at
// or below the creation revision, requested progress replies are ignored for
// CATCH_UP_MS (etcd's syncWatchers loop catches unsynced watchers up every
// 100 ms); the cache simply asks again.

import { etcdMethod, type EtcdClient, type KeyValue } from './etcdClient';
import { decodeWatchResponse, type WatchResponseWire } from './etcdWire';
import type { StreamCall } from './etcdChannel';

export interface RawEvent {
  type: 'PUT' | 'DELETE';
  kv: KeyValue;
  prevKv?: KeyValue;
}

export interface WatchHandlers {
  /** Events of one reply, in revision order. */
  onEvents(events: RawEvent[]): void;
  /** Nothing at or below `revision` is still to come. */
  onProgress(revision: bigint): void;
  /** etcd compacted past the resume point; the watch has ended. */
  onCompacted(compactRevision: bigint): void;
  /** No endpoint would take the watch for giveUpAfterMs; the watch has ended. */
  onError(err: Error): void;
}

export interface EtcdWatchOptions {
  key: string;
  /** Watch [key, rangeEnd); omitted = the single key. */
  rangeEnd?: Buffer;
  /** First revision to deliver; 0n = from now. */
  startRevision: bigint;
  prevKv?: boolean;
  progressNotify?: boolean;
  /** Give up after this long without an accepted stream (default 60 s). */
  giveUpAfterMs?: number;
}

const BACKOFF_MIN_MS = 50;
const CATCH_UP_MS = 500;
const BACKOFF_MAX_MS = 1000;


export class EtcdWatch {
  private stream: StreamCall | undefined;
  /** The next revision to ask for on (re)connect; 0n until the first `created` when watching from now. */
  private next: bigint;
  private stopped = false;
  private progressWanted = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private failingSince: number | undefined;
  private backoff = BACKOFF_MIN_MS;
  /** Requested progress replies before this time may run ahead of undelivered events. */
  private distrustProgressUntil = 0;
  /** Streams opened (1 + reconnects), for tests and metrics. */
  connects = 0;

  constructor(
    private readonly client: EtcdClient,
    private readonly opts: EtcdWatchOptions,
    private readonly handlers: WatchHandlers,
  ) {
    this.next = opts.startRevision;
    this.connect();
  }

  /** Ask etcd for a progress reply (RequestWatchProgress); sent on reconnect when no stream is open. */
  requestProgress(): void {
    if (this.stopped) return;
    if (this.stream) this.send(this.stream, { progress_request: {} });
    else this.progressWanted = true;
  }

  cancel(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const s = this.stream;
    this.stream = undefined;
    s?.cancel();
  }

  /** The revision the watch would resume from. */
  get resumeRevision(): bigint {
    return this.next;
  }

  private send(stream: StreamCall, req: Record<string, unknown>): void {
    stream.write(etcdMethod('Watch', 'Watch').requestSerialize(req));
  }

  private connect(): void {
    if (this.stopped) return;
    const ep = this.client.currentEndpoint();
    const method = etcdMethod('Watch', 'Watch');
    let created = false;
    // etcd cancels the watch when its member loses the leader (hasleader); we then move on.
    const stream: StreamCall = ep.channel.stream(method.path, { hasleader: 'true' }, {
      onMessage: (bytes) => {
        if (this.stream !== stream) return;
        this.onResponse(stream, decodeWatchResponse(bytes), created, () => (created = true), broken);
      },
      onEnd: () => broken(),
    });
    this.stream = stream;
    this.connects++;
    const broken = () => {
      if (this.stream !== stream) return;
      this.stream = undefined;
      stream.cancel();
      this.client.failover(ep.index);
      this.scheduleReconnect();
    };
    this.send(stream, {
      create_request: {
        key: Buffer.from(this.opts.key),
        range_end: this.opts.rangeEnd,
        start_revision: this.next.toString(),
        progress_notify: this.opts.progressNotify ?? false,
        prev_kv: this.opts.prevKv ?? false,
      },
    });
  }

  private onResponse(stream: StreamCall, res: WatchResponseWire, created: boolean, markCreated: () => void, broken: () => void): void {
    const rev = res.revision;
    if (res.created) {
      markCreated();
      this.failingSince = undefined;
      this.backoff = BACKOFF_MIN_MS;
      if (this.next === 0n) this.next = rev + 1n;
      else if (this.next <= rev) this.distrustProgressUntil = Date.now() + CATCH_UP_MS;
      if (this.progressWanted) {
        this.progressWanted = false;
        this.send(stream, { progress_request: {} });
      }
      return;
    }
    const compactRev = res.compactRevision;
    if (compactRev > 0n) {
      this.stopped = true;
      this.stream = undefined;
      stream.cancel();
      this.handlers.onCompacted(compactRev);
      return;
    }
    if (res.canceled) return broken();
    if (res.events.length === 0) {
      if (!created) return;
      const requested = res.watchId === -1n;
      if (requested && Date.now() < this.distrustProgressUntil) return;
      if (rev >= this.next) this.next = rev + 1n;
      this.handlers.onProgress(rev);
      return;
    }
    const events: RawEvent[] = [];
    for (const e of res.events) {
      // A reconnect may replay what an earlier stream already delivered.
      if (e.kv.modRevision < this.next) continue;
      events.push(e);
    }
    if (events.length === 0) return;
    this.next = events[events.length - 1].kv.modRevision + 1n;
    this.handlers.onEvents(events);
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const now = Date.now();
    this.failingSince ??= now;
    if (now - this.failingSince > (this.opts.giveUpAfterMs ?? 60_000)) {
      this.stopped = true;
      this.handlers.onError(new Error(`etcd watch on ${this.opts.key}: no endpoint accepted the watch for ${now - this.failingSince} ms`));
      return;
    }
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, BACKOFF_MAX_MS);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }
}
