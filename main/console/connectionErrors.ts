// What went wrong reaching an etcd member, said the way an operator can act
// on it. gRPC reports a failed TLS handshake or a refused connection as
// "UNAVAILABLE: No connection established. Last error: ..." with the
// underlying error text; this names the usual causes — the CA does not
// match the member's certificate, the client certificate is expired or not
// accepted, an http:// URL for a member that speaks TLS (or the reverse),
// nothing listening, no answer — and keeps the original text after it.

import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

function text(err: unknown): string {
  const e = err as { details?: string; message?: string };
  return e.details || e.message || String(err);
}

/** A clear message for a failed call to url, with the original error in parentheses. */
export function connectionError(err: unknown, url: string, conn: { cacert?: string; cert?: string }): string {
  const raw = text(err);
  const https = url.startsWith('https:');
  const why = ((): string | undefined => {
    if (/self[- ]signed certificate|unable to verify the first certificate|unable to get (local )?issuer certificate|certificate signed by unknown authority/i.test(raw)) {
      return `the member's certificate is not signed by the CA given${conn.cacert ? ` (${conn.cacert})` : ' (none: give --etcd-cacert)'}`;
    }
    if (/certificate has expired|CERT_HAS_EXPIRED/i.test(raw)) return "a certificate has expired (the member's, or the client certificate given)";
    if (/ERR_TLS_CERT_ALTNAME_INVALID|Hostname\/IP does not match|altnames/i.test(raw)) return `the member's certificate does not name ${new URL(url).hostname}`;
    if (/alert (bad certificate|certificate required|unknown ca|certificate unknown)|sslv3 alert|tlsv13 alert/i.test(raw)) {
      return conn.cert ? `the member refused the client certificate (${conn.cert}): not signed by its CA, or not for a client` : 'the member wants a client certificate: give --etcd-cert and --etcd-key';
    }
    if (/wrong version number|packet length too long|ssl3_get_record|EPROTO/i.test(raw)) {
      return https ? 'the member does not speak TLS: use an http:// URL' : 'the member speaks TLS: use an https:// URL with --etcd-cacert';
    }
    if (!https && /Received RST_STREAM|Protocol error|ECONNRESET|socket hang up|Connection dropped|Premature close/i.test(raw)) {
      return 'the connection was dropped at once: the member probably speaks TLS; use an https:// URL with --etcd-cacert';
    }
    if (/ECONNREFUSED/i.test(raw)) return 'nothing listens there (connection refused)';
    if (/ENOTFOUND|EAI_AGAIN/i.test(raw)) return 'the host name does not resolve';
    if (/EHOSTUNREACH|ENETUNREACH/i.test(raw)) return 'the host is unreachable';
    if (/DEADLINE_EXCEEDED|ETIMEDOUT|timed out/i.test(raw)) return 'no answer in time (unreachable, or a firewall drops the traffic)';
    if (/PERMISSION_DENIED|permission denied/i.test(raw)) return 'the member refused the call for this user (etcd auth)';
    return undefined;
  })();
  return why ? `${why} (${raw})` : raw;
}

const PROBE_MS = 2_000;

/**
 * gRPC says only "Failed to connect" when an http:// URL meets a member that
 * speaks TLS (the member drops the plaintext HTTP/2 preface). This asks the
 * port itself: nothing listening, or a TLS server behind an http:// URL.
 * Undefined when the transport looks right (the cause is elsewhere).
 */
export function probeTransport(url: string): Promise<string | undefined> {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const sock = netConnect({ host, port });
    const done = (v: string | undefined) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done('no answer in time (unreachable, or a firewall drops the traffic)'), PROBE_MS);
    sock.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED' ? 'nothing listens there (connection refused)' : `cannot connect (${err.code ?? err.message})`));
    sock.once('connect', () => {
      if (u.protocol === 'https:') return done(undefined);
      // Listening: does it answer a TLS ClientHello?
      const tls = tlsConnect({ socket: sock, rejectUnauthorized: false, servername: host === '127.0.0.1' || host === '::1' ? undefined : host });
      tls.once('secureConnect', () => done('the member speaks TLS: use an https:// URL with --etcd-cacert'));
      tls.once('error', (err: NodeJS.ErrnoException) => done(/alert|certificate/i.test(err.message) ? 'the member speaks TLS: use an https:// URL with --etcd-cacert' : undefined));
    });
  });
}
