// The Admission log for an API server the console does not run: its audit
// log (kube-apiserver --audit-log-path: one audit.k8s.io/v1 Event per line)
// followed like `tail -F` and turned into the TraceRecords the view lists.
// Request traces exist only for Pilothouse's own API server; an audit log
// says who asked for what, the authorization decision and the answer, and
// the admission plugins' annotations — but no per-stage latencies.
//
// Following: the file is polled (POLL_MS); it starts INITIAL_TAIL_BYTES from
// the end (the latest requests, not a 100 MB history); a file that shrank or
// was replaced (log rotation) is read again from its start. A request
// audited at several stages is listed once, at its first stage after
// RequestReceived (ResponseStarted for a watch, else ResponseComplete).
// Bounded: the last `capacity` records, as the trace feed keeps them.

import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { EventSink, TraceRecord } from '../../preload/contract';
import { TRACE_RING_CAPACITY } from './traceFeed';
import { TraceRing } from './traceRing';

export const POLL_MS = 500;
export const INITIAL_TAIL_BYTES = 4 * 1024 * 1024;
const READ_CHUNK = 1024 * 1024;

/** The fields of an audit.k8s.io/v1 Event the view uses. */
interface AuditLine {
  kind?: string;
  apiVersion?: string;
  auditID?: string;
  stage?: string;
  requestURI?: string;
  verb?: string;
  user?: { username?: string; groups?: string[] };
  impersonatedUser?: { username?: string; groups?: string[] };
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string; resourceVersion?: string };
  responseStatus?: { code?: number; message?: string; reason?: string };
  requestReceivedTimestamp?: string;
  stageTimestamp?: string;
  annotations?: Record<string, string>;
}

const METHOD: Record<string, string> = {
  get: 'GET', list: 'GET', watch: 'GET', create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE', deletecollection: 'DELETE',
};

const DECISION = 'authorization.k8s.io/decision';
const REASON = 'authorization.k8s.io/reason';

/** One audit log line as a TraceRecord; undefined for what is not a request's event (or a RequestReceived one). */
export function parseAuditLine(line: string): TraceRecord | undefined {
  let ev: AuditLine;
  try {
    ev = JSON.parse(line) as AuditLine;
  } catch {
    return undefined;
  }
  if (!ev || ev.kind !== 'Event' || !ev.apiVersion?.startsWith('audit.k8s.io/') || !ev.auditID || !ev.verb) return undefined;
  if (ev.stage === 'RequestReceived') return undefined;
  const code = ev.responseStatus?.code;
  const annotations = ev.annotations ?? {};
  const forbid = annotations[DECISION] === 'forbid';
  const decision: TraceRecord['decision'] = forbid ? 'denied' : code !== undefined && code >= 500 ? 'error' : code !== undefined && code >= 400 ? 'denied' : 'allowed';
  const stages: TraceRecord['stages'] = [];
  if (annotations[DECISION]) stages.push({ stage: 'authorization', verdict: annotations[DECISION], ...(annotations[REASON] && { reason: annotations[REASON] }), latencyMs: 0 });
  for (const [k, v] of Object.entries(annotations)) if (k !== DECISION && k !== REASON) stages.push({ stage: k, verdict: v, latencyMs: 0 });
  const received = Date.parse(ev.requestReceivedTimestamp ?? '');
  const ended = Date.parse(ev.stageTimestamp ?? '');
  const user = ev.impersonatedUser ?? ev.user;
  const o = ev.objectRef ?? {};
  const path = ev.requestURI ?? '';
  const out: TraceRecord = {
    id: ev.auditID,
    receivedAt: ev.requestReceivedTimestamp ?? ev.stageTimestamp ?? '',
    verb: ev.verb,
    method: METHOD[ev.verb] ?? ev.verb.toUpperCase(),
    path,
    decision,
    stages,
    source: 'audit',
  };
  if (user?.username) out.user = user.username;
  if (user?.groups) out.groups = user.groups;
  if (o.resource) out.resource = o.resource;
  if (o.subresource) out.subresource = o.subresource;
  if (o.namespace) out.namespace = o.namespace;
  if (o.name) out.name = o.name;
  if (o.resourceVersion) out.resourceVersion = o.resourceVersion;
  if (code !== undefined) out.code = code;
  if (ev.responseStatus?.message) out.message = ev.responseStatus.message;
  if (Number.isFinite(received) && Number.isFinite(ended)) out.latencyMs = Math.max(0, ended - received);
  return out;
}

export interface AuditLogFeedOptions {
  path: string;
  events: EventSink;
  capacity?: number;
  /** The feed's problem changed (undefined: reading fine). */
  onProblem?(message: string | undefined): void;
}

export class AuditLogFeed {
  private readonly ring: TraceRing;
  private pollTimer: NodeJS.Timeout | undefined;
  private ino = -1;
  private offset = 0;
  private partial = '';
  private problemText: string | undefined;
  private disposed = false;

  constructor(private readonly opts: AuditLogFeedOptions) {
    this.ring = new TraceRing(opts.capacity ?? TRACE_RING_CAPACITY, opts.events);
  }

  start(): void {
    this.poll();
  }

  /** What keeps the log from being read, if anything. */
  problem(): string | undefined {
    return this.problemText;
  }

  private setProblem(p: string | undefined): void {
    if (p === this.problemText) return;
    this.problemText = p;
    this.opts.onProblem?.(p);
  }

  /** Reads what was appended since the last poll (all of it, in chunks), then polls again. */
  poll(): void {
    if (this.disposed) return;
    try {
      this.readNew();
      this.setProblem(undefined);
    } catch (err) {
      this.setProblem(`cannot read the audit log ${this.opts.path}: ${(err as Error).message}`);
    }
    this.pollTimer = setTimeout(() => this.poll(), POLL_MS);
  }

  private readNew(): void {
    const st = statSync(this.opts.path);
    if (st.ino !== this.ino || st.size < this.offset) {
      // first read, or rotated / truncated: start over (the first time, near the end)
      const first = this.ino === -1;
      this.ino = st.ino;
      this.offset = first ? Math.max(0, st.size - INITIAL_TAIL_BYTES) : 0;
      this.partial = '';
      if (this.offset > 0) this.partial = '\u0000'; // mid-line: the first line read is cut, skip it
    }
    if (st.size === this.offset) return;
    const fd = openSync(this.opts.path, 'r');
    try {
      const buf = Buffer.alloc(READ_CHUNK);
      while (this.offset < st.size) {
        const n = readSync(fd, buf, 0, Math.min(READ_CHUNK, st.size - this.offset), this.offset);
        if (n <= 0) break;
        this.offset += n;
        this.ingestText(buf.subarray(0, n).toString('utf8'));
      }
    } finally {
      closeSync(fd);
    }
  }

  private ingestText(chunk: string): void {
    const text = this.partial + chunk;
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    for (let i = 0; i < lines.length; i++) {
      if (i === 0 && lines[0]!.startsWith('\u0000')) continue;
      const line = lines[i]!.trim();
      if (line) this.ingestLine(line);
    }
  }

  ingestLine(line: string): void {
    const record = parseAuditLine(line);
    if (record) this.ring.add(record);
  }

  recent(req: { limit: number }): TraceRecord[] {
    return this.ring.recent(req.limit);
  }

  dispose(): void {
    this.disposed = true;
    this.ring.dispose();
    if (this.pollTimer) clearTimeout(this.pollTimer);
  }
}
