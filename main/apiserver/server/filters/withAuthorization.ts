// May this user do this? The authorizer list decides (authz/authorizer.ts);
// anything but an explicit allow is kube's 403 Forbidden.

import type { UserInfo } from '../../authn/user';
import { authorize, forbiddenFor, type AuthorizationAttributes, type Authorizer } from '../../authz/authorizer';
import type { NamedFilter } from '../context';
import type { RequestInfo } from '../requestInfo';

export function withAuthorization(authorizers: Authorizer[]): NamedFilter {
  return {
    name: 'authorization',
    run: async (ctx, next) => {
      const t0 = performance.now();
      const attrs = attributesOf(ctx.info, ctx.user!);
      const r = await authorize(authorizers, attrs);
      const latencyMs = performance.now() - t0;
      // The decision and the authorizer's reason go into the audit event, as kube's WithAuthorization records them.
      ctx.auditAnnotations['authorization.k8s.io/decision'] = r.decision === 'allow' ? 'allow' : 'forbid';
      ctx.auditAnnotations['authorization.k8s.io/reason'] = r.reason ?? '';
      if (r.decision !== 'allow') {
        ctx.trace.add({ stage: 'authorization', verdict: 'deny', reason: r.reason ?? 'no authorizer allowed the request', latencyMs });
        throw forbiddenFor(attrs, r.reason);
      }
      ctx.trace.add({ stage: 'authorization', verdict: 'allow', reason: r.reason ?? `allowed by ${r.by}`, latencyMs });
      await next();
    },
  };
}

/** The authorizer's view of a request (kube's authorizer.AttributesRecord from the RequestInfo). */
function attributesOf(info: RequestInfo, user: UserInfo): AuthorizationAttributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}
