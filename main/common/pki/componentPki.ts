// Client identities of the control-plane components, as kubeadm makes them:
// a certificate per component signed by the Kubernetes CA (the API server
// reads CN as the user and O as the groups) and a kubeconfig per component
// named as kubeadm names them, beside the admin kubeconfig in DIR:
//
//   DIR/pki/kube/scheduler.crt, .key              CN=system:kube-scheduler
//   DIR/pki/kube/controller-manager.crt, .key     CN=system:kube-controller-manager
//   DIR/pki/kube/kubelet-<node>.crt, .key         CN=system:node:<node>, O=system:nodes
//   DIR/scheduler.conf, DIR/controller-manager.conf, DIR/kubelet-<node>.conf
//
// Certificates are embedded in the kubeconfigs (as kubeadm does), so each
// file alone is a working identity. Nothing that exists is regenerated,
// except that a kubeconfig is rewritten when the server URL changed.

import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
// Loaded only when a certificate is issued: @peculiar/x509 costs a start that
// finds its PKI complete (every warm restart) a tenth of a second of CPU.
const certificates = () => import('./certificates');
import { ensurePair, writeWhole, type CertPaths } from './clusterPki';
import type { KubePki } from './kubePki';

export interface ComponentIdentity {
  /** The user name the API server sees. */
  user: string;
  groups: string[];
  pair: CertPaths;
  kubeconfig: string;
}

export interface ComponentKubeconfigs {
  scheduler: ComponentIdentity;
  controllerManager: ComponentIdentity;
  kubelets: Record<string, ComponentIdentity>;
}

export const SCHEDULER_USER = 'system:kube-scheduler';
export const CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';
export const NODES_GROUP = 'system:nodes';
export const nodeUser = (node: string): string => `system:node:${node}`;

export function componentIdentities(kube: KubePki, dataDir: string, nodeNames: string[]): ComponentKubeconfigs {
  const pair = (name: string): CertPaths => ({ cert: join(kube.dir, `${name}.crt`), key: join(kube.dir, `${name}.key`) });
  const id = (user: string, groups: string[], file: string): ComponentIdentity => ({ user, groups, pair: pair(file), kubeconfig: join(dataDir, `${file}.conf`) });
  return {
    scheduler: id(SCHEDULER_USER, [], 'scheduler'),
    controllerManager: id(CONTROLLER_MANAGER_USER, [], 'controller-manager'),
    kubelets: Object.fromEntries(nodeNames.map((n) => [n, id(nodeUser(n), [NODES_GROUP], `kubelet-${n}`)])),
  };
}

/** Issues what is missing and writes the kubeconfigs for server (https://127.0.0.1:port). */
export async function ensureComponentPki(kube: KubePki, dataDir: string, server: string, nodeNames: string[]): Promise<ComponentKubeconfigs> {
  const ids = componentIdentities(kube, dataDir, nodeNames);
  const ca = await ensurePair(kube.ca, () => {
    throw new Error(`Kubernetes CA missing at ${kube.ca.cert}`);
  });
  const all = [ids.scheduler, ids.controllerManager, ...Object.values(ids.kubelets)];
  // All at once, as in ensureClusterPki: the controllers wait for these before their first request.
  await Promise.all(
    all.map(async (c) => {
      const kc = await ensurePair(c.pair, async () => (await certificates()).issueLeaf(ca, { profile: 'client', commonName: c.user, organizations: c.groups.length ? c.groups : undefined }));
      const text = componentKubeconfig(server, ca.cert, c.user, kc.cert, kc.key);
      if (!existsSync(c.kubeconfig) || readFileSync(c.kubeconfig, 'utf8') !== text) writeWhole(c.kubeconfig, text, 0o600);
      else chmodSync(c.kubeconfig, 0o600);
    }),
  );
  return ids;
}

/** kubeadm's shape: cluster `kubernetes`, user = the identity, context `<user>@kubernetes`. */
export function componentKubeconfig(server: string, caPem: string, user: string, certPem: string, keyPem: string): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${b64(caPem)}`,
    `    server: ${server}`,
    '  name: kubernetes',
    'contexts:',
    '- context:',
    '    cluster: kubernetes',
    `    user: ${user}`,
    `  name: ${user}@kubernetes`,
    `current-context: ${user}@kubernetes`,
    'preferences: {}',
    'users:',
    `- name: ${user}`,
    '  user:',
    `    client-certificate-data: ${b64(certPem)}`,
    `    client-key-data: ${b64(keyPem)}`,
    '',
  ].join('\n');
}
