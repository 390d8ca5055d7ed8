// The served group versions, derived from the ResourceDef list: which groups
// exist, their versions, the preferred one, in the order kube lists them
// (core first, then by the aggregator's group priority; unknown groups by name).

import type { ResourceDef } from '../registry/rest/resourceDef';

export interface GroupVersions {
  group: string;
  versions: string[]; // preferred first
}

/** kube-aggregator's group priorities (higher first) for the groups we may serve. */
const GROUP_PRIORITY: Record<string, number> = {
  '': 18000,
  'apiregistration.k8s.io': 17800,
  apps: 17800,
  'events.k8s.io': 17750,
  'authentication.k8s.io': 17700,
  'authorization.k8s.io': 17600,
  autoscaling: 17500,
  batch: 17400,
  'certificates.k8s.io': 17300,
  'networking.k8s.io': 17200,
  policy: 17100,
  'rbac.authorization.k8s.io': 17000,
  'storage.k8s.io': 16800,
  'admissionregistration.k8s.io': 16700,
  'apiextensions.k8s.io': 16700,
  'scheduling.k8s.io': 16600,
  'coordination.k8s.io': 16500,
  'node.k8s.io': 16300,
  'discovery.k8s.io': 16200,
  'flowcontrol.apiserver.k8s.io': 16100,
  'storagemigration.k8s.io': 15800,
};

export function groupVersionsOf(defs: ResourceDef[]): GroupVersions[] {
  const byGroup = new Map<string, string[]>();
  for (const d of defs) {
    const vs = byGroup.get(d.group) ?? [];
    if (!vs.includes(d.version)) vs.push(d.version);
    byGroup.set(d.group, vs);
  }
  return [...byGroup.entries()]
    .map(([group, versions]) => ({ group, versions }))
    .sort((a, b) => (GROUP_PRIORITY[b.group] ?? 0) - (GROUP_PRIORITY[a.group] ?? 0) || a.group.localeCompare(b.group));
}

export function resourcesIn(defs: ResourceDef[], group: string, version: string): ResourceDef[] {
  return defs.filter((d) => d.group === group && d.version === version).sort((a, b) => a.resource.localeCompare(b.resource));
}
