// Aggregated discovery (apidiscovery.k8s.io/v2 APIGroupDiscoveryList): the
// whole resource list in one answer to /api (the core group) and one to /apis
// (every other group), served when the Accept header asks for it — kubectl
// 1.32 does, with a fallback to plain JSON. The response carries a quoted
// ETag, `Vary: Accept` and `Cache-Control: public`; a matching If-None-Match
// is 304 (k8s.io/apiserver pkg/endpoints/discovery/aggregated).

import { createHash } from 'node:crypto';
import type { ResourceDef } from '../registry/rest/resourceDef';
import { parseMediaRanges } from '../server/mediaType';
import { groupVersionsOf, resourcesIn } from './apiGroups';

export const AGGREGATED_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** Whether the Accept header asks for the v2 aggregated list before anything we would serve otherwise. */
export function wantsAggregated(accept: string | undefined): boolean {
  for (const r of parseMediaRanges(accept)) {
    if (r.params.g === 'apidiscovery.k8s.io' && r.params.v === 'v2' && r.params.as === 'APIGroupDiscoveryList' && r.subtype === 'json') return true;
    if (r.params.as === undefined && (r.subtype === 'json' || r.subtype === '*')) return false;
  }
  return false;
}

function resourceDiscovery(d: ResourceDef): Record<string, unknown> {
  const r: Record<string, unknown> = {
    resource: d.resource,
    responseKind: { group: '', version: '', kind: d.kind },
    scope: d.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: d.singular,
    verbs: d.verbs,
  };
  if (d.shortNames.length > 0) r.shortNames = d.shortNames;
  if (d.categories.length > 0) r.categories = d.categories;
  if (d.subresources.length > 0) {
    r.subresources = [...d.subresources]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((s) => {
        const same = s.kind.group === d.group && s.kind.version === d.version;
        return {
          subresource: s.name,
          responseKind: { group: same ? '' : s.kind.group, version: same ? '' : s.kind.version, kind: s.kind.kind },
          verbs: s.verbs,
        };
      });
  }
  return r;
}

/** core: true → the /api document (the core group only); false → /apis (all other groups). */
export function aggregatedList(defs: ResourceDef[], core: boolean): Record<string, unknown> {
  const groups = groupVersionsOf(defs).filter((g) => (g.group === '') === core);
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: groups.map((g) => ({
      metadata: core ? { creationTimestamp: null } : { name: g.group, creationTimestamp: null },
      versions: g.versions.map((v) => ({ version: v, resources: resourcesIn(defs, g.group, v).map(resourceDiscovery), freshness: 'Current' })),
    })),
  };
}

export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('hex').toUpperCase()}"`;
}
