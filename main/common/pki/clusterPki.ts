// The PKI of a local cluster, laid out like kubeadm's etcd/ directory, one
// set of member certificates per member:
//
//   DIR/ca.crt, ca.key                 the cluster CA (ECDSA P-256)
//   DIR/<member>/server.crt, .key      client-facing TLS (--cert-file/--key-file)
//   DIR/<member>/peer.crt, .key        peer TLS, both directions (--peer-cert-file/--peer-key-file)
//   DIR/client.crt, client.key         etcdctl's client certificate (CN=root)
//
// Server and peer certificates name 127.0.0.1, ::1, localhost and the member.
// Nothing that exists is regenerated, so a resumed cluster keeps its PKI and
// etcdctl.env stays valid; delete DIR to start over. Keys are written 0600.

import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyAndCert, LeafRequest } from './certificates';
// Loaded only when a certificate is issued: @peculiar/x509 costs a start that
// finds its PKI complete (every warm restart) a tenth of a second of CPU.
const certificates = () => import('./certificates');

export interface CertPaths {
  cert: string;
  key: string;
}

export interface ClusterPki {
  dir: string;
  ca: CertPaths;
  client: CertPaths;
  members: Map<string, { server: CertPaths; peer: CertPaths }>;
}

export const CA_COMMON_NAME = 'pilothouse-etcd-ca';
export const CLIENT_COMMON_NAME = 'root';
export const LOCAL_HOSTS = ['localhost', '127.0.0.1', '::1'];

/** Where each file lives (nothing is read or written). */
export function clusterPkiPaths(dir: string, memberNames: string[]): ClusterPki {
  const pair = (base: string): CertPaths => ({ cert: `${base}.crt`, key: `${base}.key` });
  return {
    dir,
    ca: pair(join(dir, 'ca')),
    client: pair(join(dir, 'client')),
    members: new Map(memberNames.map((n) => [n, { server: pair(join(dir, n, 'server')), peer: pair(join(dir, n, 'peer')) }])),
  };
}

/** Creates whatever files of the PKI are missing and returns the paths. */
export async function ensureClusterPki(dir: string, memberNames: string[]): Promise<ClusterPki> {
  const pki = clusterPkiPaths(dir, memberNames);
  privateDir(dir);
  const ca = await ensurePair(pki.ca, async () => (await certificates()).issueCa(CA_COMMON_NAME));
  const leaf = (paths: CertPaths, req: LeafRequest) => ensurePair(paths, async () => (await certificates()).issueLeaf(ca, req));
  for (const name of pki.members.keys()) privateDir(join(dir, name));
  // All at once: key generation and signing run on libuv's pool, so a busy
  // machine delays the batch once rather than once per certificate.
  await Promise.all([
    leaf(pki.client, { profile: 'client', commonName: CLIENT_COMMON_NAME }),
    ...[...pki.members].flatMap(([name, m]) => {
      const hosts = [...LOCAL_HOSTS, name];
      return [leaf(m.server, { profile: 'server', commonName: name, hosts }), leaf(m.peer, { profile: 'peer', commonName: name, hosts })];
    }),
  ]);
  return pki;
}

/** The existing pair, or a new one written key first; each file appears whole (temp file + rename). */
export async function ensurePair(paths: CertPaths, issue: () => Promise<KeyAndCert>): Promise<KeyAndCert> {
  if (existsSync(paths.cert) && existsSync(paths.key)) {
    chmodSync(paths.key, 0o600);
    return { cert: readFileSync(paths.cert, 'utf8'), key: readFileSync(paths.key, 'utf8') };
  }
  const pair = await issue();
  writePair(paths, pair);
  return pair;
}

/** Writes a pair in place, key first (0600; a key file that existed with wider modes is narrowed). */
export function writePair(paths: CertPaths, pair: KeyAndCert): void {
  writeWhole(paths.key, pair.key, 0o600);
  writeWhole(paths.cert, pair.cert, 0o644);
}

/** A file replaced whole (temp file + rename), with exactly this mode whatever the umask. */
export function writeWhole(path: string, text: string, mode: number): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, path);
}

/** A directory only its owner may enter (0700, also when it existed with wider modes). */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}
