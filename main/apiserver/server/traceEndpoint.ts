// GET /debug/pilothouse/traces: the request traces in the ring buffer, oldest
// first ({"kind":"RequestTraceList","items":[...]}); with ?watch=true a
// stream of newline-delimited JSON traces: first the buffer's contents, then
// each trace as its request completes, until the client goes away. Only for
// authenticated users (the chain has authenticated the request already).
// Requests for this path are not recorded in the buffer (handlerChain.ts),
// so a console following the traces does not feed itself.
//
// A follower that stops reading is treated as the watch cache treats a
// watcher (backlogLimit.ts): traces wait in a bounded queue while the
// response is backed up, and a queue that stays above its limit for the
// dispatch timeout closes the stream (the follower reconnects and gets the
// buffer again).

import { BacklogLimit, DISPATCH_TIMEOUT_MS, unresponsiveLine } from '../storage/backlogLimit';
import type { RequestContext } from './context';
import { LineStream } from './lineStream';
import { truthy } from './requestInfo';
import { writeObject } from './responseWriter';
import type { RequestTrace } from '../../kube/requestTrace';
import type { RequestTraceLog } from './traceLog';

export const TRACES_PATH = '/debug/pilothouse/traces';
/** Traces a follower may owe before the dispatch timeout starts. */
export const TRACE_FOLLOWER_BUFFER = 100;

const logLine = (line: string): void => void process.stderr.write(`${line}\n`);

export async function serveTraces(ctx: RequestContext, log: RequestTraceLog): Promise<void> {
  if (!truthy(ctx.url.searchParams.get('watch'))) {
    writeObject(ctx, 200, { kind: 'RequestTraceList', items: log.list() }, 'json');
    return;
  }
  const res = ctx.res;
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  ctx.trace.respond(200);
  const stream = new LineStream(res);
  // The buffer's contents go first, at the client's pace; only what comes after them counts against the limit.
  const queue: RequestTrace[] = log.list();
  let preamble = queue.length;
  let unresponsive: number | undefined;
  let close!: () => void;
  const closed = new Promise<void>((resolve) => (close = resolve));
  const backlog = new BacklogLimit(TRACE_FOLLOWER_BUFFER, DISPATCH_TIMEOUT_MS, () => {
    unresponsive = queue.length;
    close();
  });
  const flush = (): void => {
    let sent = 0;
    while (sent < queue.length && stream.ready) stream.write(JSON.stringify(queue[sent++]));
    queue.splice(0, sent);
    preamble = Math.max(0, preamble - sent);
    backlog.update(queue.length - preamble);
  };
  stream.onWritable(flush);
  flush();
  const unsubscribe = log.subscribe((t) => {
    queue.push(t);
    flush();
  });
  if (ctx.signal.aborted) close();
  ctx.signal.addEventListener('abort', close, { once: true });
  await closed;
  unsubscribe();
  backlog.dispose();
  queue.length = 0;
  if (unresponsive !== undefined) logLine(`apiserver: ${unresponsiveLine('traces', `path: ${JSON.stringify(TRACES_PATH)}`, unresponsive, stream.pending)}`);
  stream.end();
}

export function isTracePath(path: string): boolean {
  return path === TRACES_PATH;
}
