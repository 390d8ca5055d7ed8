// kube's WithRequestDeadline and WithTimeoutForNonLongRunningRequests
// (pkg/endpoints/filters/request_deadline.go, pkg/server/filters/timeout.go):
// a non-long-running request has --request-timeout to be answered, or less
// when its `?timeout=` (a Go duration) asks for less; a bad `timeout` is a
// 400. When the time is up and nothing was written yet, the client gets
// kube's 504 Timeout Status and the connection closes once it is written
// (a slow body would otherwise keep it); the handler's own answer, if it
// still comes, goes nowhere. Long-running requests (longRunning.ts) are not
// bounded. All deadlines share one check timer (requestDeadlines.ts).

import { badRequest, failure } from '../../api/status';
import { parseGoDurationStrict } from '../../../common/goDuration';
import type { NamedFilter } from '../context';
import { isLongRunning } from '../longRunning';
import type { RequestDeadlines } from '../requestDeadlines';
import { writeError } from '../responseWriter';

export const TIMEOUT_MESSAGE = 'Timeout: request did not complete within requested timeout - context deadline exceeded';
const INVALID_TIMEOUT = 'invalid timeout specified in the request URL';

export function withRequestTimeout(requestTimeoutMs: number, deadlines: RequestDeadlines, now: () => number = performance.now.bind(performance)): NamedFilter {
  return {
    name: 'requestTimeout',
    run: async (ctx, next) => {
      if (requestTimeoutMs <= 0 || isLongRunning(ctx)) return next();
      let timeoutMs = requestTimeoutMs;
      const asked = ctx.url.searchParams.get('timeout');
      if (asked !== null && asked !== '') {
        const ms = parseGoDurationStrict(asked);
        if (typeof ms === 'string') throw badRequest(`${INVALID_TIMEOUT} - ${ms}`);
        if (ms > 0 && ms < timeoutMs) timeoutMs = ms;
      }
      const deadline = {
        at: now() + timeoutMs,
        onExpired: () => {
          if (ctx.res.headersSent || ctx.res.writableEnded) return;
          ctx.trace.add({ stage: 'requestTimeout', verdict: 'error', reason: `no answer within ${timeoutMs} ms`, latencyMs: timeoutMs });
          ctx.res.setHeader('Connection', 'close');
          writeError(ctx, failure(504, 'Timeout', TIMEOUT_MESSAGE, {}));
        },
      };
      deadlines.add(deadline);
      try {
        await next();
      } finally {
        deadlines.delete(deadline);
      }
    },
  };
}
