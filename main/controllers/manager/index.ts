// The controller manager (kube-controller-manager's controllers this project
// runs): deployment, replicaset, garbage collector, namespace, service
// account, endpoints, resource quota, cluster role aggregation, root CA
// publisher and storage version migrator, all on the context's shared
// informers; each writes as the manager's identity
// (system:kube-controller-manager) or, with useServiceAccountCredentials, as
// its own kube-system service account. They run while ctx.signal is live —
// the program holds the kube-system/kube-controller-manager Lease.

import { setMaxListeners } from 'node:events';
import type { ControllerContext } from '../../client/kube';
import { controllerContext } from '../../client/kube/serviceAccountCredentials';
import { startClusterRoleAggregationController } from './clusterRoleAggregation';
import { startDeploymentController } from './deployment/controller';
import { startEndpointsController } from './endpoints/controller';
import { startGarbageCollector } from './gc/controller';
import { startNamespaceController } from './namespace/controller';
import { startReplicaSetController } from './replicaset/controller';
import { startRootCaPublisher } from './rootca/controller';
import { startResourceQuotaController } from './resourceQuota';
import { startServiceAccountController } from './serviceaccount/controller';
import { startStorageVersionMigrator } from './storageversionmigrator/controller';

export const MANAGER_CONTROLLERS = {
  deployment: startDeploymentController,
  replicaset: startReplicaSetController,
  garbagecollector: startGarbageCollector,
  namespace: startNamespaceController,
  serviceaccount: startServiceAccountController,
  endpoints: startEndpointsController,
  resourcequota: startResourceQuotaController,
  clusterroleaggregation: startClusterRoleAggregationController,
  rootcacertpublisher: startRootCaPublisher,
  'storage-version-migrator-controller': startStorageVersionMigrator,
} as const;

export type ManagerControllerName = keyof typeof MANAGER_CONTROLLERS;

/**
 * Starts the controllers (all by default, or those named, like
 * kube-controller-manager's --controllers) and resolves once they are
 * registered; each begins work when its caches have synced and stops with ctx.signal.
 */
export async function startControllerManager(ctx: ControllerContext, only?: ManagerControllerName[]): Promise<void> {
  // Every controller, informer, watch and sync waiter listens for the stop:
  // a few hundred at once, bounded by the informers (past 100 at start).
  setMaxListeners(1000, ctx.signal);
  // Credentials for every controller at once (each is a few round trips), then start them.
  const chosen = Object.entries(MANAGER_CONTROLLERS).filter(([name]) => !only || only.includes(name as ManagerControllerName));
  const contexts = await Promise.all(chosen.map(([name]) => controllerContext(ctx, name)));
  chosen.forEach(([, start], i) => start(contexts[i]!));
  ctx.log(`controller manager: started ${(only ?? Object.keys(MANAGER_CONTROLLERS)).join(', ')}`);
}
