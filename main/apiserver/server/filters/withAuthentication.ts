// Who is asking: the authenticator list decides (x509, then the
// plugins: static tokens, service-account JWTs, anonymous last). No user (or
// a refused credential) is kube's 401 `Unauthorized` Status. Anonymous is a
// fallback authenticator that only exists when --anonymous-auth is on (kube
// turns it off under the AlwaysAllow authorizer). The trace names the
// authenticator that accepted, or why a credential was refused — never the
// client, which only ever sees "Unauthorized".

import { unauthorized } from '../../api/status';
import { authenticateRequest, type Authenticator } from '../../authn/authenticator';
import type { NamedFilter } from '../context';

export function withAuthentication(authenticators: Authenticator[]): NamedFilter {
  return {
    name: 'authentication',
    run: async (ctx, next) => {
      const t0 = performance.now();
      let accepted: Awaited<ReturnType<typeof authenticateRequest>>;
      let why = 'no credentials';
      try {
        accepted = await authenticateRequest(authenticators, ctx.req);
      } catch (err) {
        why = err instanceof Error ? err.message : String(err);
      }
      const latencyMs = performance.now() - t0;
      if (!accepted) {
        ctx.trace.add({ stage: 'authentication', verdict: 'deny', reason: why, latencyMs });
        throw unauthorized();
      }
      const { user, by } = accepted;
      ctx.trace.add({ stage: 'authentication', verdict: 'allow', reason: `${by}: user ${user.username}`, latencyMs });
      ctx.user = user;
      ctx.trace.trace.user = { username: user.username, groups: user.groups };
      await next();
    },
  };
}
