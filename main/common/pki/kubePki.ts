// The Kubernetes side of a local cluster's PKI, laid out like kubeadm's
// /etc/kubernetes/pki, under DIR/kube (beside the etcd PKI in DIR):
//
//   DIR/kube/ca.crt, ca.key                          the Kubernetes CA (CN=kubernetes)
//   DIR/kube/apiserver.crt, .key                     serving cert: CN=kube-apiserver, SANs
//                                                    127.0.0.1, ::1, localhost, kubernetes,
//                                                    kubernetes.default, kubernetes.default.svc,
//                                                    kubernetes.default.svc.cluster.local, 10.96.0.1
//   DIR/kube/apiserver-etcd-client.crt, .key         the API server's etcd client cert,
//                                                    signed by the etcd CA (DIR/ca.*)
//   DIR/kube/admin.crt, .key                         CN=admin, O=system:masters (the kubeconfig user)
//   DIR/kube/sa.key, sa.pub                          the service-account token signing key pair
//                                                    (ECDSA P-256, SEC1 private / PKIX public: what
//                                                    kubeadm writes with encryptionAlgorithm ECDSA-P256,
//                                                    the algorithm of every other key here; tokens are
//                                                    ES256. An RSA 2048 key cost 50–500 ms of the first
//                                                    start, before the members could be spawned.)
//
// As with the etcd PKI, nothing that exists is regenerated.

import { generateKeyPair } from 'node:crypto';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
// Loaded only when a certificate is issued: @peculiar/x509 costs a start that
// finds its PKI complete (every warm restart) a tenth of a second of CPU.
const certificates = () => import('./certificates');
import { ensurePair, privateDir, writeWhole, type CertPaths, type ClusterPki } from './clusterPki';

export interface KubePki {
  dir: string;
  ca: CertPaths;
  apiserver: CertPaths;
  apiserverEtcdClient: CertPaths;
  admin: CertPaths;
  /** Service-account token keys: --service-account-signing-key-file and --service-account-key-file. */
  serviceAccount: { key: string; pub: string };
  /** The etcd CA the API server trusts for its etcd connections. */
  etcdCa: string;
}

export const KUBE_CA_COMMON_NAME = 'kubernetes';
export const APISERVER_HOSTS = [
  '127.0.0.1',
  '::1',
  'localhost',
  'kubernetes',
  'kubernetes.default',
  'kubernetes.default.svc',
  'kubernetes.default.svc.cluster.local',
  '10.96.0.1',
];

export function kubePkiPaths(etcdPki: ClusterPki): KubePki {
  const dir = join(etcdPki.dir, 'kube');
  const pair = (name: string): CertPaths => ({ cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) });
  return {
    dir,
    ca: pair('ca'),
    apiserver: pair('apiserver'),
    apiserverEtcdClient: pair('apiserver-etcd-client'),
    admin: pair('admin'),
    serviceAccount: { key: join(dir, 'sa.key'), pub: join(dir, 'sa.pub') },
    etcdCa: etcdPki.ca.cert,
  };
}

/** Creates whatever is missing; the etcd PKI must exist already (its CA signs the etcd client cert). */
export async function ensureKubePki(etcdPki: ClusterPki): Promise<KubePki> {
  const pki = kubePkiPaths(etcdPki);
  privateDir(pki.dir);
  const kubeCa = await ensurePair(pki.ca, async () => (await certificates()).issueCa(KUBE_CA_COMMON_NAME));
  const etcdCa = await ensurePair(etcdPki.ca, () => {
    throw new Error(`etcd CA missing at ${etcdPki.ca.cert}`);
  });
  // All at once, as in ensureClusterPki.
  await Promise.all([
    ensurePair(pki.apiserver, async () => (await certificates()).issueLeaf(kubeCa, { profile: 'server', commonName: 'kube-apiserver', hosts: APISERVER_HOSTS })),
    ensurePair(pki.admin, async () => (await certificates()).issueLeaf(kubeCa, { profile: 'client', commonName: 'admin', organizations: ['system:masters'] })),
    ensurePair(pki.apiserverEtcdClient, async () =>
      (await certificates()).issueLeaf(etcdCa, { profile: 'client', commonName: 'kube-apiserver-etcd-client', organizations: ['system:masters'] }),
    ),
    ensureServiceAccountKeys(pki.serviceAccount),
  ]);
  return pki;
}

/** The signing pair, written once (private key 0600, both renamed into place so a reader never sees half a file). */
async function ensureServiceAccountKeys(paths: { key: string; pub: string }): Promise<void> {
  if (existsSync(paths.key) && existsSync(paths.pub)) {
    chmodSync(paths.key, 0o600);
    return;
  }
  const { privateKey, publicKey } = await promisify(generateKeyPair)('ec', {
    namedCurve: 'prime256v1',
    privateKeyEncoding: { type: 'sec1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  writeWhole(paths.key, privateKey, 0o600);
  writeWhole(paths.pub, publicKey, 0o644);
}
