// The ServiceAccount admission plugin (kube's plugin/pkg/admission/serviceaccount)
// on pod creation:
//   - spec.serviceAccountName defaults to `default` (spec.serviceAccount, the
//     deprecated alias, follows it: the pod defaulting already keeps the two in
//     step, so both are written here);
//   - the service account must exist — read from the watch cache, and on a
//     miss once more from etcd (kube's live lookup: the SA may be newer than
//     the cache); else 403 `error looking up service account ns/sa:
//     serviceaccount "sa" not found`;
//   - unless automountServiceAccountToken is false (the pod's choice wins
//     over the SA's), a projected volume `kube-api-access-<5 random chars>`
//     (token with expirationSeconds 3607, the kube-root-ca.crt ConfigMap's
//     ca.crt, the namespace from the downward API) mounted read-only at
//     /var/run/secrets/kubernetes.io/serviceaccount in every container and
//     init container that does not mount something there already;
//   - the SA's imagePullSecrets when the pod names none.
// Pods with the mirror-pod annotation are left as they are.

import type { KObject } from '../../kube/object';
import { notFound } from '../api/status';
import type { AdmissionAttributes, AdmissionPlugin } from './interfaces';
import type { ServerEnv } from '../serverEnv';
import { StorageError } from '../storage/interface';
import { admissionForbidden } from './errors/forbidden';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const SERVICE_ACCOUNT_VOLUME_PREFIX = 'kube-api-access-';
export const DEFAULT_API_TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
/** kube's WarnOnlyBoundTokenExpirationSeconds: one hour and 7 seconds. */
const TOKEN_EXPIRATION_SECONDS = 3607;
/** utilrand.String's alphabet (no vowels, no confusable digits). */
const RAND_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

interface Container {
  name?: string;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

interface PodSpec {
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  volumes?: { name: string }[];
  containers?: Container[];
  initContainers?: Container[];
  imagePullSecrets?: { name?: string }[];
}

interface ServiceAccount extends KObject {
  automountServiceAccountToken?: boolean;
  imagePullSecrets?: { name?: string }[];
}

export interface ServiceAccountPluginOptions {
  /** Random source for the volume name suffix (tests inject one). */
  random?: () => number;
}

export function isPodCreate(a: AdmissionAttributes): boolean {
  return a.operation === 'CREATE' && a.group === '' && a.resource === 'pods' && a.subresource === '' && a.object !== undefined;
}

export function randomSuffix(n: number, random: () => number = Math.random): string {
  let s = '';
  for (let i = 0; i < n; i++) s += RAND_ALPHABET[Math.floor(random() * RAND_ALPHABET.length)];
  return s;
}

export function tokenVolume(name: string): Record<string, unknown> {
  return {
    name,
    projected: {
      defaultMode: 0o644,
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

/** Adds the token volume and its mounts (kube's mountServiceAccountToken). */
export function mountServiceAccountToken(spec: PodSpec, random: () => number = Math.random): void {
  const existing = (spec.volumes ?? []).find((v) => v.name.startsWith(SERVICE_ACCOUNT_VOLUME_PREFIX));
  const volumeName = existing?.name ?? SERVICE_ACCOUNT_VOLUME_PREFIX + randomSuffix(5, random);
  let needsVolume = false;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if ((c.volumeMounts ?? []).some((m) => m.mountPath === DEFAULT_API_TOKEN_MOUNT_PATH)) continue;
    (c.volumeMounts ??= []).push({ name: volumeName, readOnly: true, mountPath: DEFAULT_API_TOKEN_MOUNT_PATH });
    needsVolume = true;
  }
  if (!existing && needsVolume) (spec.volumes ??= []).push(tokenVolume(volumeName) as { name: string });
}

export function serviceAccountPlugin(env: ServerEnv, _ctx?: unknown, opts: ServiceAccountPluginOptions = {}): AdmissionPlugin {
  const random = opts.random ?? Math.random;

  async function lookup(namespace: string, name: string): Promise<ServiceAccount> {
    const key = env.keyFor('serviceaccounts', '', namespace, name);
    const storage = env.storageFor('serviceaccounts');
    try {
      return (await storage.get(key, { resourceVersion: '0', shareObject: true })) as ServiceAccount;
    } catch (err) {
      if (!(err instanceof StorageError && err.code === 'KeyNotFound')) throw err;
    }
    try {
      return (await storage.get(key)) as ServiceAccount;
    } catch (err) {
      if (err instanceof StorageError && err.code === 'KeyNotFound') throw notFound({ group: '', resource: 'serviceaccount' }, name);
      throw err;
    }
  }

  return {
    name: 'ServiceAccount',
    handles: isPodCreate,
    async admit(a) {
      const pod = a.object!;
      if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return;
      const spec = ((pod as { spec?: PodSpec }).spec ??= {});
      if (!spec.serviceAccountName) spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT;
      spec.serviceAccount = spec.serviceAccountName;
      let sa: ServiceAccount;
      try {
        sa = await lookup(a.namespace, spec.serviceAccountName);
      } catch (err) {
        throw admissionForbidden(a, `error looking up service account ${a.namespace}/${spec.serviceAccountName}: ${(err as Error).message}`);
      }
      const automount = spec.automountServiceAccountToken ?? sa.automountServiceAccountToken ?? true;
      if (automount) mountServiceAccountToken(spec, random);
      if ((spec.imagePullSecrets ?? []).length === 0 && (sa.imagePullSecrets ?? []).length > 0) {
        spec.imagePullSecrets = sa.imagePullSecrets!.map((s) => ({ name: s.name }));
      }
    },
    validate(a) {
      const pod = a.object!;
      if (pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return;
      const spec = (pod as { spec?: PodSpec }).spec;
      if (!spec?.serviceAccountName) throw admissionForbidden(a, `no service account specified for pod ${a.namespace}/${pod.metadata.name ?? ''}`);
    },
  };
}
