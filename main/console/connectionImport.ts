// Connection drafts from what an operator already has: an etcdctl.env file
// (`export ETCDCTL_ENDPOINTS=...`), the ETCDCTL_* variables themselves,
// kubeadm's /etc/kubernetes/pki/etcd layout, and kubeconfig contexts. Each
// importer is pure (text, variables or a file probe in; drafts out); the
// session reads the files. Drafts are not saved: the dialog shows them first.

import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { ConnectionDraft } from '../../preload/contract';
import { parseEnvFile } from '../controlplane/envFile';

/** kubeadm's etcd listens on the node's loopback (and its address) at the standard client port. */
export const KUBEADM_ENDPOINT = 'https://127.0.0.1:2379';
export const KUBEADM_ETCD_DIR = '/etc/kubernetes/pki/etcd';

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint.includes('://') ? endpoint : `http://${endpoint}`).host;
  } catch {
    return endpoint;
  }
}

/** ETCDCTL_ENDPOINTS (comma-separated), ETCDCTL_CACERT, ETCDCTL_CERT, ETCDCTL_KEY; relative paths from `base`. Undefined without endpoints. */
export function draftFromEtcdctlVars(vars: Record<string, string | undefined>, base: string): ConnectionDraft | undefined {
  const endpoints = (vars.ETCDCTL_ENDPOINTS ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '');
  if (endpoints.length === 0) return undefined;
  const file = (name: string): string | undefined => {
    const v = vars[name]?.trim();
    return v ? (isAbsolute(v) ? v : resolve(base, v)) : undefined;
  };
  const cacert = file('ETCDCTL_CACERT');
  const cert = file('ETCDCTL_CERT');
  const key = file('ETCDCTL_KEY');
  return { name: `etcd ${hostOf(endpoints[0]!)}`, etcd: { endpoints, ...(cacert && { cacert }), ...(cert && { cert }), ...(key && { key }) }, writable: false };
}

/** An etcdctl.env file's text (relative paths from the file's directory). */
export function draftFromEtcdctlEnvFile(text: string, path: string): ConnectionDraft | undefined {
  return draftFromEtcdctlVars(parseEnvFile(text), dirname(path));
}

/**
 * kubeadm's layout, given its pki/etcd directory: the etcd CA (ca.crt) and the
 * health-check client certificate beside it, else the API server's etcd
 * client certificate one level up (pki/apiserver-etcd-client.crt/.key).
 */
export function draftFromKubeadmDir(dir: string, exists: (p: string) => boolean, endpoint = KUBEADM_ENDPOINT): ConnectionDraft {
  const cacert = join(dir, 'ca.crt');
  if (!exists(cacert)) throw new Error(`${cacert}: no such file (is ${dir} kubeadm's pki/etcd directory?)`);
  const pairs = [
    [join(dir, 'healthcheck-client.crt'), join(dir, 'healthcheck-client.key')],
    [join(dir, '..', 'apiserver-etcd-client.crt'), join(dir, '..', 'apiserver-etcd-client.key')],
  ].map(([c, k]) => [resolve(c!), resolve(k!)] as const);
  const pair = pairs.find(([c, k]) => exists(c) && exists(k));
  if (!pair) throw new Error(`no client certificate for etcd: neither ${pairs.map(([c, k]) => `${c} + ${k}`).join(' nor ')}`);
  return { name: `kubeadm etcd ${hostOf(endpoint)}`, etcd: { endpoints: [endpoint], cacert, cert: pair[0], key: pair[1] }, writable: false };
}

/** The kubeconfig files kubectl reads: KUBECONFIG's list (colon-separated, empty entries skipped), else ~/.kube/config. */
export function kubeconfigFiles(env: Record<string, string | undefined>, home: string): string[] {
  const list = (env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '');
  return list.length > 0 ? [...new Set(list)] : [join(home, '.kube', 'config')];
}

/**
 * Every context of the merged files, as kubectl lists them: the first file
 * that defines a name wins, and current-context is the first file's that sets
 * one. Each draft points at the file that defines its context.
 */
export function draftsFromKubeconfigs(files: { path: string; text: string }[]): { drafts: ConnectionDraft[]; currentContext?: string } {
  const seen = new Set<string>();
  const drafts: ConnectionDraft[] = [];
  let currentContext: string | undefined;
  for (const f of files) {
    const kc = new KubeConfig();
    try {
      kc.loadFromString(f.text);
    } catch (err) {
      throw new Error(`${f.path}: not a kubeconfig (${(err as Error).message})`);
    }
    currentContext ??= kc.getCurrentContext() || undefined;
    for (const ctx of kc.getContexts()) {
      if (seen.has(ctx.name)) continue;
      seen.add(ctx.name);
      drafts.push({ name: ctx.name, kube: { kubeconfig: f.path, context: ctx.name }, writable: false });
    }
  }
  return { drafts, ...(currentContext && { currentContext }) };
}
