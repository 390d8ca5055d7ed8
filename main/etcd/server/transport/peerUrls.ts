// Peer URLs (etcd's --listen-peer-urls / --initial-advertise-peer-urls) into
// gRPC addresses and credentials. The scheme picks the credentials: http://
// is plaintext; https:// needs the peer TLS material (--peer-cert-file,
// --peer-key-file, --peer-trusted-ca-file, --peer-client-cert-auth), which
// the command-line parser reads into PeerTlsOptions.

import { ChannelCredentials, ServerCredentials } from '@grpc/grpc-js';
import { hostOfTarget, tlsChannel, type TlsChannel } from '../../../common/tlsChannel';

export interface PeerTlsOptions {
  /** PEM certificate chain this member presents (as server and as client). */
  cert: Buffer;
  key: Buffer;
  /** PEM CA bundle that peers' certificates must chain to; absent: system roots. */
  ca?: Buffer;
  /** --peer-client-cert-auth: require and verify a client certificate on inbound calls. */
  clientCertAuth?: boolean;
}

export interface PeerAddress {
  url: string;
  secure: boolean;
  /** host:port as grpc-js takes it ("[::1]:2380" for IPv6). */
  target: string;
}

export function parsePeerUrl(url: string): PeerAddress {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`invalid peer URL ${JSON.stringify(url)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new Error(`URL scheme must be http or https: ${url}`);
  }
  if (u.port === '') throw new Error(`URL address does not have the form "host:port": ${url}`);
  if (u.pathname !== '/' && u.pathname !== '') throw new Error(`URL must not contain a path: ${url}`);
  return { url, secure: u.protocol === 'https:', target: `${u.hostname}:${u.port}` };
}

function needTls(tls: PeerTlsOptions | undefined, url: string): PeerTlsOptions {
  if (!tls) throw new Error(`peer URL ${url} is https but no peer certificate and key were given`);
  return tls;
}

export function serverCredentialsFor(addr: PeerAddress, tls: PeerTlsOptions | undefined): ServerCredentials {
  if (!addr.secure) return ServerCredentials.createInsecure();
  const t = needTls(tls, addr.url);
  return ServerCredentials.createSsl(t.ca ?? null, [{ cert_chain: t.cert, private_key: t.key }], t.clientCertAuth ?? false);
}

/** Credentials plus the channel options they need (the TLS server name for IP targets). */
export function channelFor(addr: PeerAddress, tls: PeerTlsOptions | undefined): TlsChannel {
  if (!addr.secure) return { credentials: ChannelCredentials.createInsecure(), options: {} };
  const t = needTls(tls, addr.url);
  return tlsChannel(hostOfTarget(addr.target), t.ca ?? null, t.key, t.cert);
}
