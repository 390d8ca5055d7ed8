// What went wrong reaching a Kubernetes API server through a kubeconfig,
// said the way an operator can act on it: an exec credential plugin that is
// not installed (client-node rejects with the spawn error) or that failed,
// a context the kubeconfig does not have, nothing listening, no answer, a
// certificate the kubeconfig's CA did not sign, credentials the server does
// not accept, and RBAC that forbids a list or watch. The original text stays
// after the explanation, in parentheses.

import { ApiError } from '../client/kube/restClient';

export interface KubeTarget {
  /** The API server URL, when known. */
  server?: string;
  /** The exec plugin's command, when the context's user has one. */
  execCommand?: string;
}

function text(err: unknown): string {
  const e = err as { message?: string };
  return (e?.message || String(err)).trim();
}

/** `kubeconfig` has no context `name`: the contexts it has, so a typo shows. */
export function missingContext(kubeconfig: string, name: string, contexts: readonly string[]): string {
  return `${kubeconfig} has no context "${name}" (its contexts: ${contexts.length ? contexts.join(', ') : 'none'})`;
}

/** A clear message for a failed call to the API server (or for building a client for it). */
export function kubeError(err: unknown, target: KubeTarget = {}): string {
  const raw = text(err);
  const code = (err as NodeJS.ErrnoException)?.code;
  const syscall = (err as NodeJS.ErrnoException)?.syscall ?? '';
  const at = target.server ? ` at ${target.server}` : '';
  if (err instanceof ApiError) {
    if (err.status === 401) return `the API server${at} did not accept the kubeconfig's credentials (401 Unauthorized: ${raw})`;
    if (err.status === 403) return `forbidden (${raw})`;
    return `${err.status} ${err.reason ?? ''}`.trim() + ` (${raw})`;
  }
  const why = ((): string | undefined => {
    if (code === 'ENOENT' && syscall.startsWith('spawn')) {
      const cmd = target.execCommand ?? syscall.slice('spawn'.length).trim();
      return `the kubeconfig's user runs "${cmd}" to get a token, and it is not installed`;
    }
    if (code === 'EACCES' && syscall.startsWith('spawn')) {
      const cmd = target.execCommand ?? syscall.slice('spawn'.length).trim();
      return `the kubeconfig's user runs "${cmd}" to get a token, and it cannot be run (not executable)`;
    }
    if (/self[- ]signed certificate|unable to verify the first certificate|unable to get (local )?issuer certificate|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE/i.test(raw + (code ?? ''))) {
      return `the API server's certificate${at} is not signed by the kubeconfig's certificate-authority`;
    }
    if (/certificate has expired|CERT_HAS_EXPIRED/i.test(raw + (code ?? ''))) return "a certificate has expired (the API server's, or the kubeconfig's client certificate)";
    if (/ERR_TLS_CERT_ALTNAME_INVALID|Hostname\/IP does not match/i.test(raw + (code ?? ''))) return `the API server's certificate does not name the host${at}`;
    if (code === 'ECONNREFUSED' || /ECONNREFUSED/.test(raw)) return `nothing listens${at} (connection refused)`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the API server's host name does not resolve${at}`;
    if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `the API server's host is unreachable${at}`;
    if (code === 'ETIMEDOUT' || (err as Error)?.name === 'TimeoutError' || /timed? ?out|aborted due to timeout/i.test(raw)) return `no answer from the API server${at} in time (unreachable, or a firewall drops the traffic)`;
    if (code === 'ECONNRESET' || /socket hang up/.test(raw)) return `the API server${at} dropped the connection (an http:// server URL for a TLS server, or the reverse?)`;
    return undefined;
  })();
  if (why) return `${why} (${raw})`;
  // An exec plugin that ran and failed: client-node rejects with its stderr as the message.
  if (target.execCommand) return `the kubeconfig's user runs "${target.execCommand}" to get a token, and it failed (${raw || 'no output'})`;
  return raw;
}

/** One resource the feed could not watch: "cannot watch secrets: forbidden (User "x" cannot list …)". */
export function cannotWatch(resource: string, err: unknown, scope?: string): string {
  return `cannot watch ${resource}${scope ? ` ${scope}` : ''}: ${kubeError(err)}`;
}

export const isForbidden = (err: unknown): boolean => err instanceof ApiError && err.status === 403;
