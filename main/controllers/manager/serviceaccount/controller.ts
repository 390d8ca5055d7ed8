// The service account controller (kube's pkg/controller/serviceaccount): every
// active namespace has a `default` ServiceAccount; one deleted comes back.

import { RESOURCES, collectionPath, isAlreadyExists, isNotFound, type ControllerContext } from '../../../client/kube';
import { runQueue } from '../common';
import type { KObject } from '../types';

export function startServiceAccountController(ctx: ControllerContext): void {
  const rest = ctx.clients.rest;
  const nsInf = ctx.informers.informer<KObject & { status?: { phase?: string } }>(RESOURCES.namespaces);
  const saInf = ctx.informers.informer<KObject>(RESOURCES.serviceaccounts);
  const queue = runQueue(ctx, 'serviceaccount', sync, 2);
  nsInf.addEventHandler({ add: (ns) => queue.add(ns.metadata.name!), update: (_o, ns) => queue.add(ns.metadata.name!) });
  saInf.addEventHandler({ delete: (sa) => sa.metadata.name === 'default' && queue.add(sa.metadata.namespace!) });

  async function sync(name: string): Promise<void> {
    const ns = nsInf.get(name);
    if (!ns || ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating') return;
    if (saInf.getByName(name, 'default')) return;
    try {
      await rest.create(collectionPath(RESOURCES.serviceaccounts, name), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    } catch (e) {
      // Exists already (the cache lags), or the namespace went away meanwhile.
      if (isAlreadyExists(e) || isNotFound(e)) return;
      if ((e as { status?: number }).status === 403) return; // namespace is terminating
      throw e;
    }
  }
}
