// "Does this member serve a linearizable read?" — the readiness test the
// console and `pilothouse up` use. It speaks raw gRPC so it needs no .proto
// files: a RangeRequest with only field 1 (key) set is one tag, one length
// and the bytes, and any successful RangeResponse is a yes. A linearizable
// Range goes through ReadIndex, so it succeeds only with a leader and a quorum.

import { Client, credentials, Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { hostOfTarget, tlsChannel } from '../common/tlsChannel';

const RANGE_METHOD = '/etcdserverpb.KV/Range';
const PROBE_KEY = Buffer.from('health');

export function encodeRangeRequest(key: Buffer): Buffer {
  if (key.length > 127) throw new Error('probe keys are short: one-byte varint length');
  return Buffer.concat([Buffer.from([0x0a, key.length]), key]);
}

/** PEM material for a TLS client cluster (--client-cert-auth needs the client certificate). */
export interface ProbeTls {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

export interface ProbeResult {
  ok: boolean;
  /** The gRPC error text when not ok. */
  error?: string;
}

/** One linearizable Range against `endpoint` ("host:port"), bounded by timeoutMs. */
export function probeLinearizableRead(endpoint: string, timeoutMs = 2_000, tls?: ProbeTls): Promise<ProbeResult> {
  const client = tls ? tlsClient(endpoint, tls) : new Client(endpoint, credentials.createInsecure());
  return new Promise<ProbeResult>((resolve) => {
    client.makeUnaryRequest(
      RANGE_METHOD,
      (req: Buffer) => req,
      (res: Buffer) => res,
      encodeRangeRequest(PROBE_KEY),
      new Metadata(),
      { deadline: Date.now() + timeoutMs },
      (err: ServiceError | null) => {
        client.close();
        if (!err) resolve({ ok: true });
        else resolve({ ok: false, error: `${GrpcStatus[err.code] ?? err.code}: ${err.details}` });
      },
    );
  });
}

/** A TLS client that checks the server certificate against the endpoint's host, as etcdctl does. */
function tlsClient(endpoint: string, tls: ProbeTls): Client {
  const ch = tlsChannel(hostOfTarget(endpoint), tls.ca, tls.key, tls.cert);
  return new Client(endpoint, ch.credentials, ch.options);
}

/** Polls every `intervalMs` until every endpoint answers or `timeoutMs` passes. */
export async function waitForLinearizableReads(
  endpoints: string[],
  timeoutMs: number,
  intervalMs = 200,
  tls?: ProbeTls,
): Promise<{ ok: boolean; lastErrors: Map<string, string> }> {
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(endpoints);
  const lastErrors = new Map<string, string>();
  while (pending.size > 0 && Date.now() < deadline) {
    const results = await Promise.all(
      [...pending].map(async (ep) => [ep, await probeLinearizableRead(ep, Math.min(2_000, intervalMs * 10), tls)] as const),
    );
    for (const [ep, r] of results) {
      if (r.ok) {
        pending.delete(ep);
        lastErrors.delete(ep);
      } else lastErrors.set(ep, r.error ?? 'unknown');
    }
    if (pending.size > 0) await new Promise((r) => setTimeout(r, intervalMs));
  }
  return { ok: pending.size === 0, lastErrors };
}
