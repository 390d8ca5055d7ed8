// The outermost filter: nothing thrown further in may take the process down
// or leave a client hanging. A StatusError that escaped a handler is still
// answered as that Status; anything else is kube's panic answer (500, plain
// text) and a log line.

import { StatusError } from '../../api/status';
import type { NamedFilter } from '../context';
import { writeError } from '../responseWriter';

export const PANIC_MESSAGE = 'This request caused apiserver to panic. Look in the logs for details.';

export function withPanicRecovery(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): NamedFilter {
  return {
    name: 'panicRecovery',
    run: async (ctx, next) => {
      try {
        await next();
      } catch (err) {
        if (err instanceof StatusError) {
          writeError(ctx, err);
          return;
        }
        log(`apiserver: panic serving ${ctx.req.method} ${ctx.url.pathname}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        ctx.trace.respond(500);
        ctx.trace.trace.message = PANIC_MESSAGE;
        if (ctx.res.headersSent) {
          ctx.res.end();
          return;
        }
        ctx.res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
        ctx.res.end(`${PANIC_MESSAGE}\n`);
      }
    },
  };
}
