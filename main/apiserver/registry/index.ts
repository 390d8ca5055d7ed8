// Every resource this API server serves, as data. The REST layer, discovery
// and OpenAPI all walk this list.

import { deployments } from './apps/deployments';
import { replicasets } from './apps/replicasets';
import { leases } from './coordination/leases';
import { configmaps, secrets, serviceaccounts } from './core/config';
import { endpoints } from './core/endpoints';
import { events } from './core/events';
import { namespaces } from './core/namespaces';
import { nodes } from './core/nodes';
import { pods } from './core/pods';
import { services } from './core/services';
import { limitranges } from './core/limitRanges';
import { resourcequotas } from './core/resourceQuotas';
import { clusterrolebindings, clusterroles, rolebindings, roles } from './rbac/resources';
import { mutatingWebhookConfigurations, validatingWebhookConfigurations } from './admissionregistration/webhookConfigurations';
import { validatingAdmissionPolicies, validatingAdmissionPolicyBindings } from './admissionregistration/policies';
import { storageVersionMigrations } from './storagemigration/storageVersionMigrations';
import type { ResourceDef } from './rest/resourceDef';

const resources: ResourceDef[] = [
  configmaps,
  endpoints,
  events,
  namespaces,
  nodes,
  pods,
  secrets,
  serviceaccounts,
  services,
  deployments,
  replicasets,
  leases,
  limitranges,
  resourcequotas,
  roles,
  rolebindings,
  clusterroles,
  clusterrolebindings,
  mutatingWebhookConfigurations,
  validatingWebhookConfigurations,
  validatingAdmissionPolicies,
  validatingAdmissionPolicyBindings,
  storageVersionMigrations,
];

export function allResources(): ResourceDef[] {
  return [...resources];
}

export function findResource(group: string, version: string, resource: string): ResourceDef | undefined {
  return resources.find((r) => r.group === group && r.version === version && r.resource === resource);
}

/** Field labels a resource accepts in fieldSelector (the keys its selectableFields always returns). */
export function supportedFieldLabels(def: ResourceDef): Set<string> {
  return new Set(Object.keys(def.selectableFields({ metadata: {} })));
}
