// GET /debug/pilothouse/traces: the request traces in the ring buffer, oldest
// first ({"kind":"RequestTraceList","items":[...]}); with ?watch=true a
// stream of newline-delimited JSON traces: first the buffer's contents, then
// each trace as its request completes, until the client goes away. Only for
// authenticated users (the chain has authenticated the request already).
// Requests for this path are not recorded in the buffer (handlerChain.ts),
// so a console following the traces does not feed itself.

import type { RequestContext } from './context';
import { truthy } from './requestInfo';
import { writeObject } from './responseWriter';
import type { RequestTraceLog } from './traceLog';

export const TRACES_PATH = '/debug/pilothouse/traces';

export async function serveTraces(ctx: RequestContext, log: RequestTraceLog): Promise<void> {
  if (!truthy(ctx.url.searchParams.get('watch'))) {
    writeObject(ctx, 200, { kind: 'RequestTraceList', items: log.list() }, 'json');
    return;
  }
  const res = ctx.res;
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  ctx.trace.respond(200);
  for (const t of log.list()) res.write(`${JSON.stringify(t)}\n`);
  const unsubscribe = log.subscribe((t) => {
    if (!res.writableEnded) res.write(`${JSON.stringify(t)}\n`);
  });
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  unsubscribe();
  if (!res.writableEnded) res.end();
}

export function isTracePath(path: string): boolean {
  return path === TRACES_PATH;
}
