// Client-side TLS for grpc-js channels to etcd members (peers, the leader's
// client URL). grpc-js sends the target host as the TLS server name; for an IP
// address Node warns (DEP0123: RFC 6066 allows only DNS names in SNI) once per
// process. Like etcd's clients we connect to IP URLs, so for an IP target the
// name sent is "localhost" while the certificate is still checked against the
// IP itself — the same verification etcdctl does, without the warning.

import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';
import { ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';

export interface TlsChannel {
  credentials: ChannelCredentials;
  options: ChannelOptions;
}

/** host: the bare host of the target ("127.0.0.1", "::1", "node1.example"). */
export function tlsChannel(host: string, ca: Buffer | null, key: Buffer, cert: Buffer): TlsChannel {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) === 0) return { credentials: ChannelCredentials.createSsl(ca, key, cert), options: {} };
  const credentials = ChannelCredentials.createSsl(ca, key, cert, {
    checkServerIdentity: (_servername, peerCert) => checkServerIdentity(bare, peerCert),
  });
  return { credentials, options: { 'grpc.ssl_target_name_override': 'localhost' } };
}

/** The host part of "host:port" / "[v6]:port". */
export function hostOfTarget(target: string): string {
  return target.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
}

/** PEM material for calling a member's https URL: the CA to verify with, the certificate to present. */
export interface ClientPem {
  cert: string | Buffer;
  key: string | Buffer;
  ca?: string | Buffer;
}

const pem = (v: string | Buffer): Buffer => (typeof v === 'string' ? Buffer.from(v) : v);

/**
 * The channel for a member's client URL ("http://h:p" plaintext, "https://h:p"
 * with `tls`); undefined when the URL cannot be called (https without TLS
 * material, or another scheme).
 */
export function clientUrlChannel(url: string, tls: ClientPem | undefined): (TlsChannel & { target: string }) | undefined {
  const u = new URL(url);
  if (u.protocol === 'http:') return { target: u.host, credentials: ChannelCredentials.createInsecure(), options: {} };
  if (u.protocol !== 'https:' || tls === undefined) return undefined;
  const ch = tlsChannel(u.hostname, tls.ca === undefined ? null : pem(tls.ca), pem(tls.key), pem(tls.cert));
  return { target: u.host, ...ch };
}
