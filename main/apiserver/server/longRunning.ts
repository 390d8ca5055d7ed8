// kube's BasicLongRunningRequestCheck as kube-apiserver configures it: the
// verbs watch and proxy, and the subresources attach, exec, proxy, log and
// portforward, are long-running — no request timeout, no in-flight slot.
// The debug trace stream (traceEndpoint.ts) is one too.

import type { RequestContext } from './context';
import { isTracePath } from './traceEndpoint';

const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function isLongRunning(ctx: Pick<RequestContext, 'info' | 'url'>): boolean {
  const info = ctx.info;
  if (info.isResourceRequest) return LONG_RUNNING_VERBS.has(info.verb) || LONG_RUNNING_SUBRESOURCES.has(info.subresource);
  return isTracePath(ctx.url.pathname);
}
