// etcdserverpb.Lease (etcd v3rpc/lease.go): thin handlers over the member's
// lease requests. Grant and Revoke are proposals. KeepAlive (a bidi stream,
// answered one request at a time in order) and TimeToLive need the leader's
// lessor: a follower forwards them to the leader's client URL
// (leaseForwarder.ts) and answers with its own header, as etcd's follower
// answers a forwarded renewal with its own header.
//
// "Lease not found" is not an error on these two: KeepAlive answers TTL 0
// and TimeToLive TTL -1 (clientv3 turns both into "expired or revoked").
// A server without lease methods (a test double) leaves the service out.

import type { ServerDuplexStream, UntypedServiceImplementation } from '@grpc/grpc-js';
import { Errors } from '../errors';
import type { LeaseId } from '../mvcc/index';
import type { AtLeader } from '../atLeader';
import type { EtcdServer, ResponseHeader, WithHeader } from './etcdServer';
import { headerToWire } from './convert';
import { LeaseForwarder, RetryableForwardError } from './leaseForwarder';
import { bidiFor } from './streamCall';
import { unaryFor, type ServiceContext } from './unaryCall';
import type { WireLong, WireResponseHeader } from './wire';

interface WireLeaseGrantRequest {
  TTL: WireLong;
  ID: WireLong;
}
interface WireLeaseIdRequest {
  ID: WireLong;
}
interface WireLeaseTimeToLiveRequest {
  ID: WireLong;
  keys: boolean;
}
interface WireLeaseGrantResponse {
  header: WireResponseHeader;
  ID: string;
  TTL: number;
}
interface WireLeaseKeepAliveResponse {
  header: WireResponseHeader;
  ID: string;
  TTL: number;
}
interface WireLeaseTimeToLiveResponse {
  header: WireResponseHeader;
  ID: string;
  TTL: number;
  grantedTTL: number;
  keys: Uint8Array[];
}

const FORWARD_RETRY_MS = 100;

type LeaseServer = Required<Pick<EtcdServer, 'leaseGrant' | 'leaseRevoke' | 'leaseKeepAlive' | 'leaseTimeToLive' | 'leaseLeases'>> &
  EtcdServer;

function hasLeases(server: EtcdServer): server is LeaseServer {
  return (
    server.leaseGrant !== undefined &&
    server.leaseRevoke !== undefined &&
    server.leaseKeepAlive !== undefined &&
    server.leaseTimeToLive !== undefined &&
    server.leaseLeases !== undefined
  );
}

/**
 * Asks the member; if it is not the leader, asks the leader at each of its
 * client URLs, again after a pause when none answered, until the request
 * timeout (etcd: ReqTimeout, 5 s + 2 election timeouts).
 */
async function atLeader<T, R>(
  ask: () => Promise<WithHeader<AtLeader<T>>>,
  local: (value: T) => R,
  forward: (url: string, deadline: number) => Promise<R>,
  timeoutMs: number,
): Promise<{ header: ResponseHeader; value: R }> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const { header, result } = await ask();
    if ('value' in result) return { header, value: local(result.value) };
    for (const url of result.forwardTo) {
      try {
        return { header, value: await forward(url, deadline) };
      } catch (err) {
        if (!(err instanceof RetryableForwardError)) throw err;
      }
    }
    if (Date.now() + FORWARD_RETRY_MS >= deadline) break;
    await new Promise((r) => setTimeout(r, FORWARD_RETRY_MS));
  }
  throw Errors.timeout();
}

export function leaseService(ctx: ServiceContext): UntypedServiceImplementation {
  const { server } = ctx;
  if (!hasLeases(server)) return {};
  const unary = unaryFor(ctx, 'etcdserverpb.Lease');
  const bidi = bidiFor(ctx, 'etcdserverpb.Lease');
  const forwarder = new LeaseForwarder(ctx.forwardTls);
  const timeoutMs = 5000 + 2 * server.config.electionTimeout;

  const keepAliveOnce = async (id: LeaseId): Promise<WireLeaseKeepAliveResponse> => {
    const { header, value } = await atLeader(
      () => server.leaseKeepAlive(id),
      (ttl) => ttl ?? 0, // not found: TTL 0, not an error
      (url, deadline) => forwarder.keepAlive(url, id, deadline),
      timeoutMs,
    );
    return { header: headerToWire(header), ID: id.toString(), TTL: value };
  };

  return {
    LeaseGrant: unary('LeaseGrant', async (w: WireLeaseGrantRequest): Promise<WireLeaseGrantResponse> => {
      const { header, result } = await server.leaseGrant(BigInt(w.ID), Number(w.TTL));
      return { header: headerToWire(header), ID: result.id.toString(), TTL: result.ttl };
    }),

    LeaseRevoke: unary('LeaseRevoke', async (w: WireLeaseIdRequest): Promise<{ header: WireResponseHeader }> => {
      const { header } = await server.leaseRevoke(BigInt(w.ID));
      return { header: headerToWire(header) };
    }),

    LeaseTimeToLive: unary('LeaseTimeToLive', async (w: WireLeaseTimeToLiveRequest): Promise<WireLeaseTimeToLiveResponse> => {
      const id = BigInt(w.ID);
      const { header, value } = await atLeader(
        () => server.leaseTimeToLive(id, w.keys),
        // not found: TTL -1, not an error
        (t) => (t === null ? { TTL: -1, grantedTTL: 0, keys: [] } : { TTL: t.ttl, grantedTTL: t.grantedTtl, keys: t.keys }),
        async (url, deadline) => {
          const f = await forwarder.timeToLive(url, id, w.keys, deadline);
          return { TTL: Number(f.TTL), grantedTTL: Number(f.grantedTTL), keys: f.keys };
        },
        timeoutMs,
      );
      return { header: headerToWire(header), ID: id.toString(), ...value };
    }),

    LeaseLeases: unary('LeaseLeases', async (): Promise<{ header: WireResponseHeader; leases: { ID: string }[] }> => {
      const { header, result } = await server.leaseLeases();
      return { header: headerToWire(header), leases: result.map((id) => ({ ID: id.toString() })) };
    }),

    LeaseKeepAlive: bidi(
      'LeaseKeepAlive',
      (call: ServerDuplexStream<WireLeaseIdRequest, WireLeaseKeepAliveResponse>, ended: AbortSignal) =>
        new Promise<void>((resolve, reject) => {
          // One at a time, in order, as etcd's Recv → Renew → Send loop.
          let chain = Promise.resolve();
          let failed = false;
          call.on('data', (req: WireLeaseIdRequest) => {
            chain = chain.then(async () => {
              if (failed || ended.aborted) return;
              try {
                const res = await keepAliveOnce(BigInt(req.ID));
                if (!ended.aborted) call.write(res);
              } catch (err) {
                failed = true;
                reject(err);
              }
            });
          });
          call.on('end', () => void chain.then(() => resolve()));
          ended.addEventListener('abort', () => resolve(), { once: true });
        }),
    ),
  };
}
