// The resources the controllers list and watch, by REST path. An informer is
// keyed by one of these plus its selectors.

export interface ResourceRef {
  /** '' for the core group. */
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

const core = (plural: string, kind: string, namespaced = true): ResourceRef => ({ group: '', version: 'v1', plural, kind, namespaced });

export const RESOURCES = {
  pods: core('pods', 'Pod'),
  nodes: core('nodes', 'Node', false),
  namespaces: core('namespaces', 'Namespace', false),
  services: core('services', 'Service'),
  endpoints: core('endpoints', 'Endpoints'),
  events: core('events', 'Event'),
  serviceaccounts: core('serviceaccounts', 'ServiceAccount'),
  configmaps: core('configmaps', 'ConfigMap'),
  secrets: core('secrets', 'Secret'),
  deployments: { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', namespaced: true },
  replicasets: { group: 'apps', version: 'v1', plural: 'replicasets', kind: 'ReplicaSet', namespaced: true },
  leases: { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true },
  storageversionmigrations: { group: 'storagemigration.k8s.io', version: 'v1alpha1', plural: 'storageversionmigrations', kind: 'StorageVersionMigration', namespaced: false },
} as const satisfies Record<string, ResourceRef>;

export function apiVersionOf(r: ResourceRef): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** The collection path, across namespaces when namespace is omitted. */
export function collectionPath(r: ResourceRef, namespace?: string): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  return r.namespaced && namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${r.plural}` : `${base}/${r.plural}`;
}

export function objectPath(r: ResourceRef, namespace: string | undefined, name: string, subresource?: string): string {
  return `${collectionPath(r, namespace)}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
}
