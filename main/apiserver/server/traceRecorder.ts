// Builds one RequestTrace (trace.ts) while a request moves through the chain:
// each stage adds its verdict and latency, the response writer records the
// final code and Status, storage results come from the REST handlers.

import { randomUUID } from 'node:crypto';
import type { Status } from '../api/status';
import type { RequestTrace, StageVerdict, TraceStage } from '../../kube/requestTrace';

export class TraceRecorder {
  readonly trace: RequestTrace;
  private readonly started = performance.now();
  private finished = false;

  constructor(method: string, path: string, now: Date = new Date()) {
    this.trace = { id: randomUUID(), receivedAt: now.toISOString(), verb: method.toLowerCase(), method, path, stages: [] };
  }

  /** Times `run` as a stage; a thrown error records verdict 'error' (or 'deny' for a StatusError 401/403/422) and rethrows. */
  async stage<T>(stage: string, run: () => Promise<T> | T, verdictOf: (r: T) => StageVerdict = () => 'ok'): Promise<T> {
    const t0 = performance.now();
    try {
      const r = await run();
      this.add({ stage, verdict: verdictOf(r), latencyMs: performance.now() - t0 });
      return r;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const verdict: StageVerdict = code === 401 || code === 403 || code === 422 ? 'deny' : 'error';
      this.add({ stage, verdict, reason: err instanceof Error ? err.message : String(err), latencyMs: performance.now() - t0 });
      throw err;
    }
  }

  add(s: TraceStage): void {
    this.trace.stages.push({ ...s, latencyMs: Math.round(s.latencyMs * 1000) / 1000 });
  }

  storage(result: string, resourceVersion?: string): void {
    this.trace.storageResult = result;
    if (resourceVersion !== undefined) this.trace.resourceVersion = resourceVersion;
  }

  /** The response code; a failure Status adds reason and message. Only the first call counts. */
  respond(code: number, status?: Status): void {
    if (this.trace.code !== undefined) return;
    this.trace.code = code;
    if (status && status.status === 'Failure') {
      this.trace.reason = status.reason;
      this.trace.message = status.message;
    }
  }

  /** Ends the trace; returns false if it was already finished. */
  finish(): boolean {
    if (this.finished) return false;
    this.finished = true;
    const t = this.trace;
    t.latencyMs = Math.round((performance.now() - this.started) * 1000) / 1000;
    const denied = t.stages.some((s) => s.verdict === 'deny') || t.code === 401 || t.code === 403 || t.code === 422;
    t.decision = denied ? 'denied' : t.code !== undefined && t.code >= 500 ? 'error' : 'allowed';
    return true;
  }
}

/** What a storage lifecycle records of its stages (a request's TraceRecorder, or untraced for the server's own writes). */
export type StageRecorder = Pick<TraceRecorder, 'stage' | 'add' | 'storage'>;

/** Runs stages without recording them: the server's own writes have no request trace. */
export const untraced: StageRecorder = {
  stage: async (_stage, run) => run(),
  add: () => {},
  storage: () => {},
};
