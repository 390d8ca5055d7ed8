// The last link of the chain: the traces debug endpoint, resource requests
// (the REST handlers), then the meta paths (discovery, health, version,
// OpenAPI). Anything else is kube's 404: a Status under /api and /apis,
// "404 page not found" elsewhere.

import { StatusError } from '../api/status';
import { serveResource, routeNotFound, type ScopeLookup } from './restHandler';
import type { Handler, RequestContext } from '../server/context';
import { writeError, writeRaw } from '../server/responseWriter';
import { isTracePath, serveTraces } from '../server/traceEndpoint';
import type { RequestTraceLog } from '../server/traceLog';

export interface RouterOptions {
  lookup: ScopeLookup;
  meta: (ctx: RequestContext) => Promise<boolean>;
  traces: RequestTraceLog;
  /** Where an error that is not a Status is logged with its stack (kube logs "apiserver received an error that is not an metav1.Status"). */
  log?: (line: string) => void;
}

export function createRouter(opts: RouterOptions): Handler {
  return async (ctx) => {
    if (isTracePath(ctx.url.pathname) && (ctx.req.method === 'GET' || ctx.req.method === 'HEAD')) {
      await serveTraces(ctx, opts.traces);
      return;
    }
    try {
      if (ctx.info.isResourceRequest) {
        await serveResource(ctx, opts.lookup);
        return;
      }
      if (await opts.meta(ctx)) return;
    } catch (err) {
      if (!(err instanceof StatusError)) opts.log?.(`apiserver: ${ctx.req.method} ${ctx.url.pathname}: an error that is not a Status: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      writeError(ctx, err);
      return;
    }
    if (/^\/apis?(\/|$)/.test(ctx.url.pathname)) {
      writeError(ctx, routeNotFound());
      return;
    }
    writeRaw(ctx, 404, 'text/plain; charset=utf-8', '404 page not found\n', { 'X-Content-Type-Options': 'nosniff' });
  };
}
