// Expiry and renewal of a local cluster's certificates, as kubeadm's
// renewal manager does them: every leaf certificate under the plane's data
// dir, with the CA that signed it, found from the files that exist; renewal
// issues each again from its CA with the same subject, names and usages, a
// new key and a new serial, and rewrites the kubeconfigs that embed it. The
// CAs are never renewed (a new CA would invalidate every copy of ca.crt).
//
//   name                        file(s)                                    CA
//   apiserver                   DIR/pki/kube/apiserver.*                   ca
//   apiserver-etcd-client       DIR/pki/kube/apiserver-etcd-client.*       etcd-ca
//   controller-manager.conf     DIR/pki/kube/controller-manager.*, DIR/controller-manager.conf   ca
//   etcd-client                 DIR/pki/client.* (etcdctl.env)             etcd-ca
//   etcd-peer-<member>          DIR/pki/<member>/peer.*                    etcd-ca
//   etcd-server-<member>        DIR/pki/<member>/server.*                  etcd-ca
//   kubeconfig                  DIR/pki/kube/admin.*, DIR/kubeconfig       ca
//   kubelet-<node>.conf         DIR/pki/kube/kubelet-<node>.*, DIR/kubelet-<node>.conf          ca
//   scheduler.conf              DIR/pki/kube/scheduler.*, DIR/scheduler.conf                    ca

import { X509Certificate } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyAndCert, Validity } from './certificates';
// Loaded only when a certificate is issued: @peculiar/x509 costs a start that
// finds its PKI complete (every warm restart) a tenth of a second of CPU.
const certificates = () => import('./certificates');
import { writePair, writeWhole, type CertPaths } from './clusterPki';

export type CaName = 'ca' | 'etcd-ca';

export interface ManagedCa {
  name: CaName;
  pair: CertPaths;
}

export interface ManagedCert {
  /** What check-expiration shows, sorted by it (kubeadm's names where one exists). */
  name: string;
  /** What renew prints ("<longName> renewed"). */
  longName: string;
  caName: CaName;
  pair: CertPaths;
  /** Kubeconfig files that embed this certificate and its key. */
  kubeconfig?: string;
}

export interface ExpirationInfo {
  name: string;
  notAfter: Date;
  caName?: CaName;
}

const DAY_MS = 86_400_000;

/** The CAs and the leaf certificates that exist under the plane's data dir. */
export function pkiInventory(dataDir: string): { cas: ManagedCa[]; certs: ManagedCert[] } {
  const pki = join(dataDir, 'pki');
  const kube = join(pki, 'kube');
  const pair = (base: string): CertPaths => ({ cert: `${base}.crt`, key: `${base}.key` });
  const cas: ManagedCa[] = [
    { name: 'ca', pair: pair(join(kube, 'ca')) },
    { name: 'etcd-ca', pair: pair(join(pki, 'ca')) },
  ];
  const certs: ManagedCert[] = [
    { name: 'apiserver', longName: 'certificate for serving the Kubernetes API', caName: 'ca', pair: pair(join(kube, 'apiserver')) },
    { name: 'apiserver-etcd-client', longName: 'certificate the apiserver uses to access etcd', caName: 'etcd-ca', pair: pair(join(kube, 'apiserver-etcd-client')) },
    { name: 'etcd-client', longName: 'certificate for etcdctl and the readiness probes to access etcd', caName: 'etcd-ca', pair: pair(join(pki, 'client')) },
    {
      name: 'kubeconfig',
      longName: 'certificate embedded in the kubeconfig file for the admin to use',
      caName: 'ca',
      pair: pair(join(kube, 'admin')),
      kubeconfig: join(dataDir, 'kubeconfig'),
    },
  ];
  for (const member of subdirs(pki).filter((d) => d !== 'kube')) {
    certs.push(
      { name: `etcd-peer-${member}`, longName: `certificate for etcd nodes to communicate with each other (${member})`, caName: 'etcd-ca', pair: pair(join(pki, member, 'peer')) },
      { name: `etcd-server-${member}`, longName: `certificate for serving etcd (${member})`, caName: 'etcd-ca', pair: pair(join(pki, member, 'server')) },
    );
  }
  const component = (file: string, who: string): ManagedCert => ({
    name: `${file}.conf`,
    longName: `certificate embedded in the kubeconfig file for ${who} to use`,
    caName: 'ca',
    pair: pair(join(kube, file)),
    kubeconfig: join(dataDir, `${file}.conf`),
  });
  certs.push(component('controller-manager', 'the controller manager'), component('scheduler', 'the scheduler manager'));
  for (const f of files(kube)) {
    const node = /^kubelet-(.+)\.crt$/.exec(f)?.[1];
    if (node !== undefined) certs.push(component(`kubelet-${node}`, `the kubelet of ${node}`));
  }
  return { cas, certs: certs.filter((c) => existsSync(c.pair.cert)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) };
}

/** Expiry of a certificate as its users see it: the copy embedded in its kubeconfig when there is one. */
export function expirationOf(c: ManagedCert | ManagedCa): ExpirationInfo {
  const pem = ('kubeconfig' in c && c.kubeconfig && embeddedCert(c.kubeconfig)) || readFileSync(c.pair.cert, 'utf8');
  return { name: c.name, notAfter: new Date(new X509Certificate(pem).validTo), caName: 'caName' in c ? c.caName : undefined };
}

/** Issues c again from its CA: same request, new key and serial; writes the pair and its kubeconfig. */
export async function renewCert(dataDir: string, c: ManagedCert, validity: Validity = {}): Promise<KeyAndCert> {
  const ca = pkiInventory(dataDir).cas.find((a) => a.name === c.caName)!;
  const caPair = { cert: readFileSync(ca.pair.cert, 'utf8'), key: readFileSync(ca.pair.key, 'utf8') };
  const { issueLeaf, leafRequestOf } = await certificates();
  const renewed = await issueLeaf(caPair, leafRequestOf(readFileSync(c.pair.cert, 'utf8')), validity);
  writePair(c.pair, renewed);
  if (c.kubeconfig && existsSync(c.kubeconfig)) writeWhole(c.kubeconfig, withClientCert(readFileSync(c.kubeconfig, 'utf8'), renewed), 0o600);
  return renewed;
}

/** Renews every leaf certificate; resolves with what was renewed, in name order. */
export async function renewAll(dataDir: string, validity: Validity = {}): Promise<ManagedCert[]> {
  const { certs } = pkiInventory(dataDir);
  for (const c of certs) await renewCert(dataDir, c, validity);
  return certs;
}

/**
 * Renews the leaf certificates that expire within `withinDays` of now (the
 * plane does this at start, so a cluster kept running for a year keeps
 * working); resolves with the names renewed.
 */
export async function renewExpiring(dataDir: string, withinDays: number, now: Date = new Date()): Promise<string[]> {
  const due = pkiInventory(dataDir).certs.filter((c) => expirationOf(c).notAfter.getTime() - now.getTime() < withinDays * DAY_MS);
  for (const c of due) await renewCert(dataDir, c, { now });
  return due.map((c) => c.name);
}

/** How soon `up` and the console renew a certificate before it expires, as kubeadm's upgrade does. */
export const RENEW_WITHIN_DAYS = 30;

function embeddedCert(kubeconfig: string): string | undefined {
  if (!existsSync(kubeconfig)) return undefined;
  const data = /^\s*client-certificate-data:\s*(\S+)\s*$/m.exec(readFileSync(kubeconfig, 'utf8'))?.[1];
  return data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
}

/**
 * The kubeconfig text with the embedded client certificate and key
 * replaced line by line, so the file stays byte for byte what
 * componentKubeconfig and kubeconfigYaml write (nothing is rewritten again
 * at the next start).
 */
function withClientCert(text: string, pair: KeyAndCert): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return text
    .replace(/^(\s*client-certificate-data:\s*)\S+/gm, (_, field: string) => field + b64(pair.cert))
    .replace(/^(\s*client-key-data:\s*)\S+/gm, (_, field: string) => field + b64(pair.key));
}

function subdirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
}

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
}
