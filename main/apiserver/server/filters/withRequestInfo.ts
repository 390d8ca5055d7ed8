// Parses what the request asks for (requestInfo.ts) and names it in the trace.

import type { NamedFilter } from '../context';
import { parseRequestInfo } from '../requestInfo';

export function withRequestInfo(): NamedFilter {
  return {
    name: 'requestInfo',
    run: async (ctx, next) => {
      ctx.info = parseRequestInfo(ctx.req.method ?? 'GET', ctx.url);
      const t = ctx.trace.trace;
      t.verb = ctx.info.verb;
      if (ctx.info.isResourceRequest) {
        t.apiGroup = ctx.info.apiGroup;
        t.apiVersion = ctx.info.apiVersion;
        t.resource = ctx.info.resource;
        if (ctx.info.subresource) t.subresource = ctx.info.subresource;
        if (ctx.info.namespace) t.namespace = ctx.info.namespace;
        if (ctx.info.name) t.name = ctx.info.name;
      }
      await next();
    },
  };
}
