// The handler chain, declared as one array in execution order (outermost
// first) and run by a tiny composer, so it reads the way a request travels:
//
//   panicRecovery → requestInfo → authentication → audit → authorization → router
//
// Every request gets a RequestTrace; when the response has finished (or the
// client went away) it is completed and added to the trace log.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Handler, NamedFilter, RequestContext } from './context';
import { parseRequestInfo } from './requestInfo';
import { GO_BAD_REQUEST, refusedRequest, refuseConnection } from './connectionErrors';
import { parseRequestTarget } from './requestTarget';
import { TraceRecorder } from './traceRecorder';
import { isTracePath } from './traceEndpoint';
import type { RequestTraceLog } from './traceLog';

export function compose(filters: NamedFilter[], handler: Handler): Handler {
  return (ctx) => {
    const step = (i: number): Promise<void> => (i < filters.length ? filters[i]!.run(ctx, () => step(i + 1)) : handler(ctx));
    return step(0);
  };
}

/**
 * The node:http request listener for a composed chain. A target Go's
 * net/http would not parse is refused as net/http refuses it; nothing the
 * listener does may throw into node:http (that would end the process).
 */
export function requestListener(chain: Handler, traces: RequestTraceLog | undefined, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    try {
      serve(chain, traces, req, res);
    } catch (err) {
      log(`apiserver: panic serving ${req.method} ${JSON.stringify(req.url)}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      refuseConnection(req.socket, undefined);
    }
  };
}

function serve(chain: Handler, traces: RequestTraceLog | undefined, req: IncomingMessage, res: ServerResponse): void {
  const url = parseRequestTarget(req.url ?? '');
  const refused = url ? refusedRequest(req) : GO_BAD_REQUEST;
  if (refused !== undefined || !url) {
    refuseConnection(req.socket, refused);
    return;
  }
  const trace = new TraceRecorder(req.method ?? 'GET', url.pathname);
  // Only watches and the trace stream wait on the signal: its AbortController
  // is made when first asked for (one per request was a measurable cost).
  let abort: AbortController | undefined;
  let clientGone = false;
  const ctx: RequestContext = {
    req,
    res,
    url,
    info: parseRequestInfo(req.method ?? 'GET', url),
    trace,
    warnings: [],
    auditAnnotations: {},
    get signal(): AbortSignal {
      if (!abort) {
        abort = new AbortController();
        if (clientGone) abort.abort();
      }
      return abort.signal;
    },
  };
  const done = (): void => {
    if (!res.writableFinished) {
      clientGone = true;
      abort?.abort();
    }
    // Requests for the traces themselves are not recorded: a console following them would feed itself.
    if (trace.finish() && !isTracePath(url.pathname)) traces?.add(trace.trace);
  };
  res.once('close', done);
  void chain(ctx).catch(() => {
    // withPanicRecovery answers everything; this only guards a chain without it.
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
}
