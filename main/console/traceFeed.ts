// The console's admission-log feed: follows the API server's request traces
// (GET /debug/pilothouse/traces?watch=true, newline-delimited JSON, over
// mutual TLS with the console's admin client certificate), keeps the last
// RING_CAPACITY in memory (bounded; the API server keeps its own bounded
// ring too) and sends them to the renderer in batches. Reconnects with
// backoff while the API server is down or restarting.

import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { EventSink, TraceRecord } from '../../preload/contract';
import type { RequestTrace } from '../kube/requestTrace';
import { TraceRing } from './traceRing';

export interface ApiServerTlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

export interface TraceFeedOptions {
  /** https://127.0.0.1:port */
  url: string;
  tls: ApiServerTlsFiles;
  events: EventSink;
  capacity?: number;
}

export const TRACE_RING_CAPACITY = 10_000;
const MAX_BACKOFF_MS = 5_000;

export function toTraceRecord(t: RequestTrace): TraceRecord {
  return {
    id: t.id,
    receivedAt: t.receivedAt,
    user: t.user?.username,
    groups: t.user?.groups,
    verb: t.verb,
    method: t.method,
    path: t.path,
    resource: t.resource,
    subresource: t.subresource,
    namespace: t.namespace,
    name: t.name,
    decision: t.decision ?? (t.code !== undefined && t.code >= 400 ? (t.code >= 500 ? 'error' : 'denied') : 'allowed'),
    code: t.code,
    message: t.message,
    resourceVersion: t.resourceVersion,
    latencyMs: t.latencyMs,
    stages: t.stages.map((s) => ({ stage: s.stage, verdict: s.verdict, reason: s.reason, patch: s.patch, latencyMs: s.latencyMs })),
  };
}

export class TraceFeed {
  private readonly ring: TraceRing;
  private readonly agent: Agent;
  private retryTimer: NodeJS.Timeout | undefined;
  private response: IncomingMessage | undefined;
  private backoffMs = 250;
  private disposed = false;

  constructor(private readonly opts: TraceFeedOptions) {
    this.ring = new TraceRing(opts.capacity ?? TRACE_RING_CAPACITY, opts.events);
    this.agent = new Agent({
      ca: readFileSync(opts.tls.caFile),
      cert: readFileSync(opts.tls.certFile),
      key: readFileSync(opts.tls.keyFile),
      keepAlive: true,
    });
  }

  start(): void {
    this.connect();
  }

  private connect(): void {
    if (this.disposed) return;
    const url = new URL('/debug/pilothouse/traces?watch=true', this.opts.url);
    const req = request(url, { agent: this.agent, headers: { accept: 'application/json' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        this.retry();
        return;
      }
      this.backoffMs = 250;
      this.response = res;
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) this.ingestLine(line);
        }
      });
      res.on('end', () => this.retry());
      res.on('error', () => this.retry());
    });
    req.on('error', () => this.retry());
    req.end();
  }

  private retry(): void {
    this.response = undefined;
    if (this.disposed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.connect();
    }, this.backoffMs);
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
  }

  /** One NDJSON line: a trace (a reconnect replays the server's buffer; ids already seen are skipped). */
  ingestLine(line: string): void {
    let trace: RequestTrace;
    try {
      trace = JSON.parse(line) as RequestTrace;
    } catch {
      return;
    }
    if (!trace || typeof trace.id !== 'string' || this.ring.has(trace.id)) return;
    this.ring.add(toTraceRecord(trace));
  }

  recent(req: { limit: number }): TraceRecord[] {
    return this.ring.recent(req.limit);
  }

  dispose(): void {
    this.disposed = true;
    this.ring.dispose();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.response?.destroy();
    this.agent.destroy();
  }
}
