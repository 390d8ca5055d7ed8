// etcdserverpb.Maintenance (etcd v3rpc/maintenance.go). Everything here is
// local to the member, no Raft: Status (etcdctl endpoint status, move-leader's
// leader lookup), Hash/HashKV (endpoint hashkv), Snapshot (snapshot save),
// Defragment (defrag), and MoveLeader (answered by the leader only) — except
// Alarm (alarm list / disarm), which goes through Raft.
// A method the server does not implement is left out (gRPC UNIMPLEMENTED).
//
// Snapshot streams the member's bbolt backend file (../backend/) in 32 KiB
// chunks {remaining_bytes, blob}, then one message whose blob is the sha256 of
// the file and remaining_bytes 0, exactly as etcd streams its bbolt file;
// etcdctl writes the blobs to disk in order.

import { createHash } from 'node:crypto';
import type { handleServerStreamingCall, ServerWritableStream, UntypedServiceImplementation } from '@grpc/grpc-js';
import { Errors, GrpcCode } from '../errors';
import { headerToWire, statusToWire, uint64Out } from './convert';
import { toGrpcFailure } from './grpcStatus';
import { unaryFor, type ServiceContext } from './unaryCall';
import type { WireLong, WireLongOut, WireResponseHeader, WireStatusResponse } from './wire';
import type { SnapshotBody } from './etcdServer';

/** etcd's snapshotSendBufferSize. */
export const SNAPSHOT_CHUNK_BYTES = 32 * 1024;
const CANCELLED = 1;

interface WireSnapshotResponse {
  remaining_bytes: WireLongOut;
  blob: Uint8Array;
}

export function maintenanceService(ctx: ServiceContext): UntypedServiceImplementation {
  const { server } = ctx;
  const unary = unaryFor(ctx, 'etcdserverpb.Maintenance');
  const impl: UntypedServiceImplementation = {
    Status: unary(
      'Status',
      async (): Promise<WireStatusResponse> => {
        const { header, result } = await server.status();
        return statusToWire(header, result);
      },
      () => true, // learners answer Status (etcdctl endpoint status)
    ),
  };
  const { hash, hashKV, snapshotBody, defragment, moveLeader, alarm } = server;
  if (hash) {
    impl.Hash = unary('Hash', async (): Promise<{ header: WireResponseHeader; hash: number }> => {
      const { header, result } = await hash.call(server);
      return { header: headerToWire(header), hash: result };
    });
  }
  if (hashKV) {
    impl.HashKV = unary(
      'HashKV',
      async (req: { revision?: WireLong }): Promise<{ header: WireResponseHeader; hash: number; compact_revision: number }> => {
        const { header, result } = await hashKV.call(server, Number(req.revision ?? 0));
        return { header: headerToWire(header), hash: result.hash, compact_revision: result.compactRevision };
      },
    );
  }
  if (defragment) {
    // etcd 3.4 answers Defragment, MoveLeader and Alarm without a header
    impl.Defragment = unary('Defragment', async () => {
      await defragment.call(server);
      return {};
    });
  }
  if (moveLeader) {
    impl.MoveLeader = unary('MoveLeader', async (req: { targetID?: WireLong }) => {
      await moveLeader.call(server, BigInt(req.targetID ?? '0'));
      return {};
    });
  }
  if (alarm) {
    impl.Alarm = unary('Alarm', async (req: { action?: number; memberID?: WireLong; alarm?: number }) => {
      const { result } = await alarm.call(server, {
        action: req.action ?? 0,
        memberId: BigInt(req.memberID ?? '0'),
        alarm: req.alarm ?? 0,
      });
      return { alarms: result.map((m) => ({ memberID: uint64Out(m.memberId), alarm: m.alarm })) };
    });
  }
  if (snapshotBody) impl.Snapshot = snapshotStream(ctx, () => snapshotBody.call(server));
  return impl;
}

function snapshotStream(ctx: ServiceContext, body: () => Promise<Uint8Array | SnapshotBody>): handleServerStreamingCall<unknown, WireSnapshotResponse> {
  const counter = ctx.metrics.forMethod('etcdserverpb.Maintenance', 'Snapshot', 'server_stream');
  return (call) => {
    counter.started();
    let done = false;
    const finish = (code: number, failure?: ReturnType<typeof toGrpcFailure>) => {
      if (done) return;
      done = true;
      counter.handled(code);
      if (failure) call.emit('error', failure);
      else if (code !== CANCELLED) call.end();
    };
    call.on('cancelled', () => finish(CANCELLED));
    if (ctx.server.isLearner?.() === true) {
      const failure = toGrpcFailure(Errors.notSupportedForLearner());
      return finish(failure.code, failure);
    }
    body()
      .then((b) => sendChunks(call, b, () => done))
      .then(
        () => finish(GrpcCode.OK),
        (err: unknown) => {
          const failure = toGrpcFailure(err);
          finish(failure.code, failure);
        },
      );
  };
}

async function sendChunks(call: ServerWritableStream<unknown, WireSnapshotResponse>, body: Uint8Array | SnapshotBody, cancelled: () => boolean): Promise<void> {
  const source: SnapshotBody = body instanceof Uint8Array ? { size: body.length, chunks: (n) => slices(body, n) } : body;
  // hashed as it goes, so the trailer is ready when the last chunk is
  const hash = createHash('sha256');
  let sent = 0;
  for (const blob of source.chunks(SNAPSHOT_CHUNK_BYTES)) {
    if (cancelled()) return;
    hash.update(blob);
    sent += blob.length;
    if (!call.write({ remaining_bytes: uint64Out(BigInt(source.size - sent)), blob })) {
      await new Promise<void>((resolve) => {
        const go = () => {
          call.off('drain', go);
          call.off('cancelled', go);
          resolve();
        };
        call.on('drain', go);
        call.on('cancelled', go);
      });
    }
  }
  if (!cancelled()) call.write({ remaining_bytes: 0, blob: hash.digest() });
}

function* slices(body: Uint8Array, n: number): Generator<Uint8Array> {
  for (let off = 0; off < body.length; off += n) yield body.subarray(off, Math.min(off + n, body.length));
}
