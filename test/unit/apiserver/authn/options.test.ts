import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiServerConfig } from '../../../../main/apiserver/config';
import { authenticationOptions } from '../../../../main/apiserver/options/authentication';
import type { ServerEnv } from '../../../../main/apiserver/serverEnv';

function apply(flags: Record<string, unknown>): ApiServerConfig {
  const cfg = { plugins: {} } as ApiServerConfig;
  authenticationOptions.apply(flags, cfg);
  return cfg;
}

const authenticatorNames = (cfg: ApiServerConfig) => cfg.plugins!.authenticators!({} as ServerEnv).map((a) => a.name);

afterEach(() => vi.restoreAllMocks());

describe('authentication flags', () => {
  it('AlwaysAllow switches anonymous auth off, with kube warning on stderr', () => {
    const writes: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (writes.push(String(s)), true));
    const cfg = apply({ anonymousAuth: true, authorizationMode: 'AlwaysAllow' });
    expect(authenticatorNames(cfg)).not.toContain('anonymous');
    expect(writes.join('')).toMatch(/^W\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ authentication\.go:\d+\] AnonymousAuth is not allowed with the AlwaysAllow authorizer\. Resetting AnonymousAuth to false\. You should use a different authorizer\n$/);
  });

  it('an absent --authorization-mode counts as AlwaysAllow', () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(authenticatorNames(apply({ anonymousAuth: true }))).not.toContain('anonymous');
  });

  it('RBAC keeps anonymous, last', () => {
    const names = authenticatorNames(apply({ anonymousAuth: true, authorizationMode: 'Node,RBAC' }));
    expect(names.at(-1)).toBe('anonymous');
  });

  it('--anonymous-auth=false', () => {
    expect(authenticatorNames(apply({ anonymousAuth: false, authorizationMode: 'RBAC' }))).not.toContain('anonymous');
  });

  it('adds the impersonation filter and the review resources, no token subresource without a signing key', () => {
    const cfg = apply({ anonymousAuth: false });
    const env = { now: () => new Date(), authorize: async () => ({ decision: 'allow' as const }) } as unknown as ServerEnv;
    expect(cfg.plugins!.requestFilters!(env).map((f) => f.name)).toEqual(['impersonation']);
    expect(cfg.plugins!.extraResources!.flatMap((f) => f(env)).map((d) => d.resource)).toEqual(['tokenreviews', 'selfsubjectreviews']);
    expect(cfg.plugins!.decorateResources).toBeUndefined();
  });

  const errors = [
    { name: 'duplicate issuer', flags: { serviceAccountIssuer: ['https://a', 'https://a'] }, want: 'service-account-issuer "https://a" is already specified' },
    { name: 'signing key without issuer', flags: { serviceAccountSigningKeyFile: '/k' }, want: 'service-account-issuer is a required flag' },
    { name: 'max expiration under an hour', flags: { serviceAccountMaxTokenExpiration: '30m' }, want: 'the service-account-max-token-expiration must be between 1 hour and 2^32 seconds' },
    { name: 'bad duration', flags: { serviceAccountMaxTokenExpiration: '1d' }, want: '--service-account-max-token-expiration: time: unknown unit "d" in duration "1d"' },
    { name: 'missing token file', flags: { tokenAuthFile: '/nonexistent/tokens.csv' }, want: 'open /nonexistent/tokens.csv: no such file or directory' },
  ];
  for (const e of errors) it(`refuses: ${e.name}`, () => expect(() => apply({ anonymousAuth: false, ...e.flags })).toThrow(e.want));
});
