// The clusterrole-aggregation controller (kube's
// pkg/controller/clusterroleaggregation): a ClusterRole with an
// aggregationRule gets as rules the union of the rules of every ClusterRole
// its selectors match (matching roles by name order, each rule once, the
// role itself skipped). Any ClusterRole change may change some aggregate, so
// every change requeues all aggregated roles, as kube does. This is what
// gives the bootstrap admin/edit/view roles their rules, and lets a role
// labelled rbac.authorization.k8s.io/aggregate-to-edit=true extend `edit`.

import { isNotFound, type ControllerContext, type ResourceRef } from '../../client/kube';
import { objectPath } from '../../client/kube';
import { runQueue } from './common';
import { aggregatedRules, sameJson, type ClusterRole } from '../../kube/clusterRoleAggregation';

export { aggregatedRules, type ClusterRole };

export const CLUSTERROLES: ResourceRef = { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false };

export function startClusterRoleAggregationController(ctx: ControllerContext): void {
  const rest = ctx.clients.rest;
  const inf = ctx.informers.informer<ClusterRole>(CLUSTERROLES);
  // Five workers, as kube-controller-manager runs it: admin, edit and view
  // (and the roles feeding them) patch together instead of one after another.
  const queue = runQueue(ctx, 'clusterrole-aggregation', sync, 5);
  const enqueueAll = () => {
    for (const r of inf.list()) if (r.aggregationRule) queue.add(r.metadata.name!);
  };
  inf.addEventHandler({ add: enqueueAll, update: enqueueAll, delete: enqueueAll });

  async function sync(name: string): Promise<void> {
    const role = inf.get(name);
    if (!role?.aggregationRule) return;
    const rules = aggregatedRules(role, inf.list());
    if (sameJson(rules, role.rules ?? [])) return;
    // A merge patch of rules alone, like kube's server-side apply of them: no
    // resourceVersion, so concurrent aggregate updates (edit, view and admin
    // feed each other) never conflict and back off.
    try {
      await rest.patch(objectPath(CLUSTERROLES, undefined, name), 'merge', { rules });
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
  }
}
