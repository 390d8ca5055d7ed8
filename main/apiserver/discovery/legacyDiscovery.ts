// Legacy (unaggregated) discovery documents, what kubectl falls back to when
// the server does not answer in aggregated form (apimachinery meta/v1
// APIVersions, APIGroupList, APIGroup, APIResourceList). Subresources are
// entries of their own ("deployments/scale"); the scale entry names
// autoscaling/v1 Scale, which `kubectl scale` reads.

import type { ResourceDef } from '../registry/rest/resourceDef';
import { groupVersionsOf, resourcesIn } from './apiGroups';
import { storageVersionHash } from './storageVersionHash';

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function apiGroup(group: string, versions: string[]): Record<string, unknown> {
  const gvs = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions: gvs, preferredVersion: gvs[0] };
}

export function apiGroupList(defs: ResourceDef[]): Record<string, unknown> {
  const groups = groupVersionsOf(defs).filter((g) => g.group !== '');
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((g) => apiGroup(g.group, g.versions)) };
}

/** GET /apis/<group>: the APIGroup, or undefined when not served. */
export function apiGroupDoc(defs: ResourceDef[], group: string): Record<string, unknown> | undefined {
  const g = groupVersionsOf(defs).find((x) => x.group === group && group !== '');
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g.group, g.versions) } : undefined;
}

/** GET /api/v1 or /apis/<group>/<version>: the APIResourceList, or undefined when not served. */
export function apiResourceList(defs: ResourceDef[], group: string, version: string): Record<string, unknown> | undefined {
  const rs = resourcesIn(defs, group, version);
  if (rs.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const d of rs) {
    const main: Record<string, unknown> = { name: d.resource, singularName: d.singular, namespaced: d.namespaced, kind: d.kind, verbs: d.verbs };
    if (d.shortNames.length > 0) main.shortNames = d.shortNames;
    if (d.categories.length > 0) main.categories = d.categories;
    main.storageVersionHash = storageVersionHash(d.group, d.version, d.kind);
    resources.push(main);
    for (const s of [...d.subresources].sort((a, b) => a.name.localeCompare(b.name))) {
      const sub: Record<string, unknown> = { name: `${d.resource}/${s.name}`, singularName: '', namespaced: d.namespaced };
      if (s.kind.group !== d.group || s.kind.version !== d.version) {
        sub.group = s.kind.group;
        sub.version = s.kind.version;
      }
      sub.kind = s.kind.kind;
      sub.verbs = s.verbs;
      resources.push(sub);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}
