// etcdserverpb.Watch (etcd's v3rpc/watch.go): one WatchStream per gRPC
// stream. Requests go to the stream in arrival order; replies come back
// converted to the wire, fragmented when the watcher asked for it and the
// reply is at least --max-request-bytes + 512 KiB (sendFragments), written in
// order. Control replies (created, canceled, progress) are always written;
// event replies are refused while the call is backed up, and the watchable
// store replays them from history once it drains, so a slow client never
// holds up apply.

import type { ServerDuplexStream, UntypedServiceImplementation } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import type { MvccEvent } from '../mvcc/types';
import { WatchStream, type WatchCreate, type WatchReply } from '../watch/watchStream';
import { headerToWire, keyValueToWire } from './convert';
import { etcdRoot } from '../../common/etcdProtos';
import { bidiFor, type StreamHandler } from './streamCall';
import type { ServiceContext } from './unaryCall';
import type { WireKeyValue, WireLong, WireResponseHeader } from './wire';
import { maxGrpcMessageBytes } from './requestLimits';

/** etcd's default --experimental-watch-progress-notify-interval: 10 minutes. */
export const DEFAULT_PROGRESS_NOTIFY_INTERVAL_MS = 10 * 60 * 1000;

/** WatchRequest as proto-loader decodes it (oneofs: true, defaults: true). */
export interface WireWatchRequest {
  request_union?: 'create_request' | 'cancel_request' | 'progress_request';
  create_request?: {
    key: Buffer;
    range_end: Buffer;
    start_revision: WireLong;
    progress_notify: boolean;
    filters: number[];
    prev_kv: boolean;
    watch_id: WireLong;
    fragment: boolean;
  } | null;
  cancel_request?: { watch_id: WireLong } | null;
  progress_request?: object | null;
}

export interface WireEvent {
  type: number;
  kv: WireKeyValue;
  prev_kv?: WireKeyValue;
}

export interface WireWatchResponse {
  header: WireResponseHeader;
  watch_id: number;
  created?: boolean;
  canceled?: boolean;
  compact_revision?: number;
  cancel_reason?: string;
  fragment?: boolean;
  events: WireEvent[];
}

/** FilterType NOPUT = 0, NODELETE = 1. */
export function watchCreateFromWire(c: NonNullable<WireWatchRequest['create_request']>): WatchCreate {
  const filters = c.filters ?? [];
  return {
    key: c.key ?? new Uint8Array(0),
    rangeEnd: c.range_end ?? new Uint8Array(0),
    startRevision: Number(c.start_revision ?? 0),
    progressNotify: c.progress_notify === true,
    filters: { noPut: filters.includes(0), noDelete: filters.includes(1) },
    prevKv: c.prev_kv === true,
    watchId: Number(c.watch_id ?? 0),
    fragment: c.fragment === true,
  };
}

function eventToWire(ev: MvccEvent): WireEvent {
  const out: WireEvent = { type: ev.type, kv: keyValueToWire(ev.kv) };
  if (ev.prevKv !== undefined) out.prev_kv = keyValueToWire(ev.prevKv);
  return out;
}

export function watchReplyToWire(header: WireResponseHeader, r: WatchReply): WireWatchResponse {
  const out: WireWatchResponse = { header, watch_id: r.watchId, events: r.events.map(eventToWire) };
  if (r.created) out.created = true;
  if (r.canceled) out.canceled = true;
  if (r.compactRevision !== undefined) out.compact_revision = r.compactRevision;
  if (r.cancelReason !== undefined) out.cancel_reason = r.cancelReason;
  return out;
}

let responseType: protobuf.Type | undefined;
let eventType: protobuf.Type | undefined;

function encodedSize(type: protobuf.Type, value: object): number {
  return type.encode(value as protobuf.Message).finish().length;
}

function varintLength(n: number): number {
  let len = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    len++;
  }
  return len;
}

/**
 * etcd's sendFragments: a reply below maxBytes, or with fewer than two
 * events, goes whole; otherwise as parts of as many events as fit (at least
 * one), each with fragment=true except the last.
 */
export function fragmentReply(wr: WireWatchResponse, maxBytes: number): WireWatchResponse[] {
  if (wr.events.length < 2) return [wr];
  responseType ??= etcdRoot().lookupType('etcdserverpb.WatchResponse');
  eventType ??= etcdRoot().lookupType('mvccpb.Event');
  // field 11 (one tag byte) + length + event
  const sizes = wr.events.map((ev) => {
    const n = encodedSize(eventType!, ev);
    return 1 + varintLength(n) + n;
  });
  const base = encodedSize(responseType, { ...wr, events: [], fragment: true });
  const total = base + sizes.reduce((a, b) => a + b, 0);
  if (total < maxBytes) return [wr];
  const parts: WireWatchResponse[] = [];
  let idx = 0;
  while (idx < wr.events.length) {
    const start = idx;
    let size = base;
    while (idx < wr.events.length) {
      size += sizes[idx]!;
      if (idx > start && size >= maxBytes) break;
      idx++;
    }
    parts.push({ ...wr, events: wr.events.slice(start, idx), fragment: idx < wr.events.length });
  }
  return parts;
}

export function watchService(ctx: ServiceContext): UntypedServiceImplementation {
  const { server } = ctx;
  const watchable = server.watchable?.bind(server);
  const responseHeader = server.responseHeader?.bind(server);
  // A server without watches leaves the method out (gRPC UNIMPLEMENTED).
  if (watchable === undefined || responseHeader === undefined) return {};
  const bidi = bidiFor(ctx, 'etcdserverpb.Watch');

  const handle: StreamHandler<WireWatchRequest, WireWatchResponse> = (call, ended) =>
    new Promise<void>((resolve) => {
      let open = true;
      const write = (wr: WireWatchResponse) => {
        if (open) call.write(wr);
      };
      const stream = new WatchStream(watchable(), {
        send: (reply) => {
          const wr = watchReplyToWire(headerToWire(responseHeader(reply.revision)), reply);
          if (reply.fragment === true) for (const part of fragmentReply(wr, maxGrpcMessageBytes(server.config.maxRequestBytes)) /* etcd's NewWatchServer: MaxRequestBytes + grpcOverheadBytes */) write(part);
          else write(wr);
        },
        writable: () => open && !call.writableNeedDrain,
        progressIntervalMs: server.config.watchProgressNotifyInterval ?? DEFAULT_PROGRESS_NOTIFY_INTERVAL_MS,
      });
      const done = () => {
        if (!open) return;
        open = false;
        stream.close();
        resolve();
      };
      call.on('data', (req: WireWatchRequest) => {
        if (!open) return;
        onRequest(stream, req);
      });
      call.on('drain', () => stream.resume());
      // A client half-close ends nothing: etcd's recvLoop returns nil on EOF
      // and keeps sending until the client cancels the stream.
      call.on('error', done);
      call.on('close', done);
      ended.addEventListener('abort', done);
    });

  return { Watch: bidi('Watch', handle) };
}

/** One request; unknown or empty requests are ignored, as etcd does. */
function onRequest(stream: WatchStream, req: WireWatchRequest): void {
  if (req.create_request) stream.create(watchCreateFromWire(req.create_request));
  else if (req.cancel_request) stream.cancel(Number(req.cancel_request.watch_id ?? 0));
  else if (req.progress_request) stream.requestProgress();
}

export type WatchCall = ServerDuplexStream<WireWatchRequest, WireWatchResponse>;
