// Authenticators, tried in order (kube's union authenticator): each returns a
// user, or undefined when the request carries no credential it understands,
// or throws when it carries one that is invalid. The first user wins; every
// authenticated user also gets the group system:authenticated. x509 is
// here; tokens, service accounts and anonymous are beside it in authn/.

import { createHash } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from './user';

export interface Authenticator {
  name: string;
  authenticate(req: IncomingMessage): Promise<UserInfo | undefined> | UserInfo | undefined;
  /**
   * Tried only when no other authenticator recognised the request nor
   * refused a credential (anonymous, last; kube's union.NewFailOnError), and
   * its user does not get system:authenticated.
   */
  fallback?: boolean;
}

export class AuthenticationError extends Error {}

/**
 * x509 client certificates verified against --client-ca-file: the TLS layer
 * asked for a certificate and checked the chain against that CA (the server
 * sets requestCert with the CA and rejectUnauthorized false, so a request
 * without a certificate still arrives and other authenticators may take it).
 * CN → username, O → groups, as kube's x509 CommonNameUserConversion.
 */
export function x509Authenticator(): Authenticator {
  // A connection's peer certificate and its verdict never change, and
  // getPeerCertificate builds a fresh object graph on every call (a hot spot
  // under many small requests on keep-alive connections): decide once per socket.
  const perSocket = new WeakMap<TLSSocket, X509Outcome>();
  return {
    name: 'x509',
    authenticate(req) {
      const socket = req.socket as TLSSocket;
      if (typeof socket.getPeerCertificate !== 'function') return undefined;
      let outcome = perSocket.get(socket);
      if (outcome === undefined) perSocket.set(socket, (outcome = x509Outcome(socket)));
      if (outcome.kind === 'none') return undefined;
      if (outcome.kind === 'error') throw new AuthenticationError(outcome.message);
      return { username: outcome.username, groups: [...outcome.groups], extra: { 'authentication.kubernetes.io/credential-id': [outcome.credentialId] } };
    },
  };
}

type X509Outcome = { kind: 'none' } | { kind: 'error'; message: string } | { kind: 'user'; username: string; groups: string[]; credentialId: string };

function x509Outcome(socket: TLSSocket): X509Outcome {
  const cert = socket.getPeerCertificate(false);
  if (!cert || Object.keys(cert).length === 0) return { kind: 'none' };
  if (!socket.authorized) {
    return { kind: 'error', message: `verifying certificate SN=${cert.serialNumber}, SKID=, AKID= failed: ${String(socket.authorizationError ?? 'x509: certificate signed by unknown authority')}` };
  }
  const cn = one(cert.subject?.CN);
  if (!cn) return { kind: 'error', message: 'x509: client certificate has no common name' };
  const org = cert.subject?.O;
  const groups = org === undefined ? [] : Array.isArray(org) ? org : [org];
  const fp = createHash('sha256').update(cert.raw).digest('hex');
  return { kind: 'user', username: cn, groups, credentialId: `X509SHA256=${fp}` };
}

function one(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Runs the authenticators in order; adds system:authenticated to whoever was recognised (fallback users excepted). */
export async function authenticate(authenticators: Authenticator[], req: IncomingMessage): Promise<UserInfo | undefined> {
  return (await authenticateRequest(authenticators, req))?.user;
}

/**
 * kube's union authenticator with anonymous behind it: every authenticator
 * in order until one recognises the request; refusals are collected and,
 * when nobody recognised it, thrown as one AuthenticationError (Go's
 * aggregate text, each reason prefixed with its authenticator's name).
 * Fallback authenticators run only when there was no refusal.
 */
export async function authenticateRequest(authenticators: Authenticator[], req: IncomingMessage): Promise<{ user: UserInfo; by: string } | undefined> {
  const errors: string[] = [];
  const attempt = async (a: Authenticator): Promise<UserInfo | undefined> => {
    try {
      return await a.authenticate(req);
    } catch (err) {
      errors.push(`${a.name}: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  };
  for (const a of authenticators) {
    if (a.fallback) continue;
    const user = await attempt(a);
    if (user) {
      const groups = user.groups.includes('system:authenticated') ? user.groups : [...user.groups, 'system:authenticated'];
      return { user: { ...user, groups }, by: a.name };
    }
  }
  for (const a of authenticators) {
    if (!a.fallback || errors.length) continue;
    const user = await attempt(a);
    if (user) return { user, by: a.name };
  }
  if (errors.length === 1) throw new AuthenticationError(errors[0]);
  if (errors.length) throw new AuthenticationError(`[${[...new Set(errors)].join(', ')}]`);
  return undefined;
}
