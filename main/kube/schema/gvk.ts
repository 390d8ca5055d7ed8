// Group/version/kind ⇄ protobuf message, the way kube's scheme pairs them:
// the core group ("") lives in k8s.io.api.core.v1, a group "apps" in
// k8s.io.api.apps.v1, and a dotted group uses its first label
// ("coordination.k8s.io" → k8s.io.api.coordination.v1).

import type { GroupVersionKind } from '../object';
import { kubeSchema } from './types';

const groupPackages: Record<string, string> = {
  '': 'core',
  apps: 'apps',
  'coordination.k8s.io': 'coordination',
  autoscaling: 'autoscaling',
  'rbac.authorization.k8s.io': 'rbac',
  'authentication.k8s.io': 'authentication',
  'authorization.k8s.io': 'authorization',
  'admissionregistration.k8s.io': 'admissionregistration',
  'storagemigration.k8s.io': 'storagemigration',
};

const packageGroups: Record<string, string> = Object.fromEntries(Object.entries(groupPackages).map(([g, p]) => [p, g]));

/** 'k8s.io.api.apps.v1.Deployment' for apps/v1 Deployment, or undefined when we have no such message. */
const lookups = new Map<string, string | undefined>();

export function messageForGvk(gvk: GroupVersionKind): string | undefined {
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  if (lookups.has(key)) return lookups.get(key);
  const pkg = groupPackages[gvk.group];
  const name = pkg ? `k8s.io.api.${pkg}.${gvk.version}.${gvk.kind}` : undefined;
  const found = name && kubeSchema().has(name) ? name : undefined;
  if (lookups.size < 10_000) lookups.set(key, found);
  return found;
}

/** The GVK whose objects are this message ('k8s.io.api.core.v1.Pod' → {'' , v1, Pod}). */
export function gvkForMessage(message: string): GroupVersionKind | undefined {
  const m = /^\.?k8s\.io\.api\.([a-z0-9]+)\.(v[0-9a-z]+)\.([A-Za-z0-9]+)$/.exec(message);
  if (!m) return undefined;
  const group = packageGroups[m[1]];
  if (group === undefined) return undefined;
  return { group, version: m[2], kind: m[3] };
}
