// Who is asking: the authenticator list decides; no user (or a bad
// credential) is kube's 401 `Unauthorized` Status. Anonymous requests are not
// admitted: kube-apiserver turns anonymous auth off under the AlwaysAllow
// authorizer, which is what runs here until RBAC arrives ([A2]). Why a
// credential was refused goes to the trace, never to the client.

import { unauthorized } from '../../api/status';
import type { UserInfo } from '../../registry/resourceDef';
import { authenticate, type Authenticator } from '../authenticator';
import type { NamedFilter } from '../context';

export function withAuthentication(authenticators: Authenticator[]): NamedFilter {
  return {
    name: 'authentication',
    run: async (ctx, next) => {
      const t0 = performance.now();
      let user: UserInfo | undefined;
      let why = 'no credentials';
      try {
        user = await authenticate(authenticators, ctx.req);
      } catch (err) {
        why = err instanceof Error ? err.message : String(err);
      }
      const latencyMs = performance.now() - t0;
      if (!user) {
        ctx.trace.add({ stage: 'authentication', verdict: 'deny', reason: why, latencyMs });
        throw unauthorized();
      }
      ctx.trace.add({ stage: 'authentication', verdict: 'allow', reason: `user ${user.username}`, latencyMs });
      ctx.user = user;
      ctx.trace.trace.user = { username: user.username, groups: user.groups };
      await next();
    },
  };
}
