// The audit hook point (kube's WithAudit sits right after authentication, so
// audit events name the user). Audit sinks see each request when it arrives
// and when its response is complete; [A2] adds the audit policy and log as a
// sink. The time sinks take is recorded in the trace as the 'audit' stage.

import type { NamedFilter, RequestContext } from '../context';

export interface AuditSink {
  requestReceived?(ctx: RequestContext): void;
  responseComplete?(ctx: RequestContext): void;
  /** Flush and close (the server is stopping). */
  close?(): Promise<void> | void;
}

export function withAuditHook(sinks: AuditSink[]): NamedFilter {
  return {
    name: 'audit',
    run: async (ctx, next) => {
      if (sinks.length === 0) {
        await next();
        return;
      }
      const t0 = performance.now();
      for (const s of sinks) s.requestReceived?.(ctx);
      ctx.trace.add({ stage: 'audit', verdict: 'ok', latencyMs: performance.now() - t0 });
      try {
        await next();
      } finally {
        for (const s of sinks) s.responseComplete?.(ctx);
      }
    },
  };
}
