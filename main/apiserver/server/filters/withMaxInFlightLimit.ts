// kube's WithMaxInFlightLimit (pkg/server/filters/maxinflight.go): at most
// --max-requests-inflight non-mutating (get, list, watch) and
// --max-mutating-requests-inflight mutating requests are served at once;
// 0 lifts a limit. Long-running requests hold no slot. A request beyond the
// limit gets kube's answer, written with Go's http.Error (plain text, not a
// Status): 429, `Retry-After: 1`, "Too many requests, please try again
// later." — except for system:masters, which kube always serves ("a
// super-admin or a loopback connection").

import type { NamedFilter } from '../context';
import { isLongRunning } from '../longRunning';
import { writeRaw } from '../responseWriter';

const NON_MUTATING_VERBS = new Set(['get', 'list', 'watch']);
export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';

export function withMaxInFlightLimit(maxNonMutating: number, maxMutating: number): NamedFilter {
  let nonMutating = 0;
  let mutating = 0;
  return {
    name: 'maxInFlightLimit',
    run: async (ctx, next) => {
      if (isLongRunning(ctx)) return next();
      const isMutating = !NON_MUTATING_VERBS.has(ctx.info.verb);
      const limit = isMutating ? maxMutating : maxNonMutating;
      if (limit === 0) return next();
      const inFlight = isMutating ? mutating : nonMutating;
      if (inFlight >= limit) {
        if (ctx.user?.groups.includes('system:masters')) return next();
        ctx.trace.add({ stage: 'maxInFlightLimit', verdict: 'deny', reason: `${inFlight} ${isMutating ? 'mutating' : 'non-mutating'} requests in flight (limit ${limit})`, latencyMs: 0 });
        writeRaw(ctx, 429, 'text/plain; charset=utf-8', `${TOO_MANY_REQUESTS_MESSAGE}\n`, { 'Retry-After': '1', 'X-Content-Type-Options': 'nosniff' });
        return;
      }
      if (isMutating) mutating++;
      else nonMutating++;
      try {
        await next();
      } finally {
        if (isMutating) mutating--;
        else nonMutating--;
      }
    },
  };
}
