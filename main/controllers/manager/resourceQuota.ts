// The resource quota controller (kube's pkg/controller/resourcequota): keeps
// every ResourceQuota's status — hard copied from spec.hard, used recomputed
// from the namespace's objects (resourceQuotaUsage.ts). The ResourceQuota
// admission plugin charges creates as they happen; this controller is what
// gives the usage back when objects go away (replenishment) and fills the
// status of a new quota, which admission needs before it enforces anything.
//
// Work is queued per quota: on add, on a spec.hard change (not on status
// changes: those are admission's charges), when a pod or service is deleted
// or a pod ends (terminal), when a configmap or secret is deleted, and on a
// full resync every --resource-quota-sync-period (kube's 5 minutes), which
// also catches deletes of the object counts not watched here. Status is
// written with PUT .../status at the resourceVersion read, so a charge made
// by admission meanwhile makes it retry (409) rather than be lost.

import { RESOURCES, collectionPath, isNotFound, objectPath, type ControllerContext, type ResourceRef } from '../../client/kube';
import type { KObject } from './types';
import { podCountsForCompute, type ResourceQuotaObject } from '../../kube/quota/evaluators';
import { clone, runQueue } from './common';
import { quotaStatus, type QuotaTarget } from './resourceQuotaUsage';

export const RESOURCE_QUOTAS: ResourceRef = { group: '', version: 'v1', plural: 'resourcequotas', kind: 'ResourceQuota', namespaced: true };
/** kube-controller-manager's --resource-quota-sync-period default. */
export const RESOURCE_QUOTA_SYNC_PERIOD_MS = 5 * 60_000;

const keyOf = (o: KObject): string => `${o.metadata.namespace}/${o.metadata.name}`;

export function startResourceQuotaController(ctx: ControllerContext, syncPeriodMs = RESOURCE_QUOTA_SYNC_PERIOD_MS): void {
  const rest = ctx.clients.rest;
  const rqInf = ctx.informers.informer<ResourceQuotaObject>(RESOURCE_QUOTAS);
  const watched: Record<string, ReturnType<typeof ctx.informers.informer>> = {
    pods: ctx.informers.informer(RESOURCES.pods),
    services: ctx.informers.informer(RESOURCES.services),
    configmaps: ctx.informers.informer(RESOURCES.configmaps),
    secrets: ctx.informers.informer(RESOURCES.secrets),
    resourcequotas: rqInf as unknown as ReturnType<typeof ctx.informers.informer>,
  };
  const queue = runQueue(ctx, 'resourcequota', sync, 2);
  const enqueueNamespace = (ns: string | undefined) => {
    if (!ns) return;
    for (const q of rqInf.byIndex('namespace', ns)) queue.add(keyOf(q));
  };

  rqInf.addEventHandler({
    add: (q) => queue.add(keyOf(q)),
    update: (o, q) => {
      if (JSON.stringify(o.spec?.hard ?? {}) !== JSON.stringify(q.spec?.hard ?? {})) queue.add(keyOf(q));
    },
    // A quota deleted: another quota may count resourcequotas.
    delete: (q) => enqueueNamespace(q.metadata.namespace),
  });
  watched.pods.addEventHandler({
    update: (o, p) => {
      const now = new Date(ctx.clock.now());
      if (podCountsForCompute(o as never, now) && !podCountsForCompute(p as never, now)) enqueueNamespace(p.metadata?.namespace);
    },
    delete: (p) => enqueueNamespace(p.metadata?.namespace),
  });
  watched.services.addEventHandler({
    update: (o, s) => JSON.stringify(o.spec) !== JSON.stringify(s.spec) && enqueueNamespace(s.metadata?.namespace),
    delete: (s) => enqueueNamespace(s.metadata?.namespace),
  });
  for (const r of ['configmaps', 'secrets']) watched[r].addEventHandler({ delete: (o) => enqueueNamespace(o.metadata?.namespace) });

  const resync = () => {
    if (ctx.signal.aborted) return;
    for (const q of rqInf.list()) queue.add(keyOf(q));
    const cancel = ctx.clock.after(syncPeriodMs, resync);
    ctx.signal.addEventListener('abort', cancel, { once: true });
  };
  const cancelFirst = ctx.clock.after(syncPeriodMs, resync);
  ctx.signal.addEventListener('abort', cancelFirst, { once: true });

  /** Preferred version per API group, from discovery (object counts of resources not watched here). */
  const versions = new Map<string, string>();
  async function listUnwatched(t: QuotaTarget, namespace: string): Promise<KObject[]> {
    let version = t.group ? versions.get(t.group) : 'v1';
    if (!version) {
      try {
        const g = await rest.get<{ preferredVersion?: { version?: string } }>(`/apis/${t.group}`);
        version = g.preferredVersion?.version;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      if (!version) return []; // not served: nothing of it exists
      versions.set(t.group, version);
    }
    const ref: ResourceRef = { group: t.group, version, plural: t.resource, kind: '', namespaced: true };
    try {
      return (await rest.get<{ items?: KObject[] }>(collectionPath(ref, namespace))).items ?? [];
    } catch (e) {
      if (isNotFound(e)) return [];
      throw e;
    }
  }

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/');
    const q = rqInf.getByName(namespace, name);
    if (!q) return;
    const objectsOf = (t: QuotaTarget): Promise<KObject[]> | KObject[] => {
      const inf = t.group === '' ? watched[t.resource] : undefined;
      return inf ? (inf.byIndex('namespace', namespace) as KObject[]) : listUnwatched(t, namespace);
    };
    const { status, dirty } = await quotaStatus(q, objectsOf, new Date(ctx.clock.now()));
    if (!dirty) return;
    const updated = clone(q);
    updated.status = status;
    try {
      await rest.replace(objectPath(RESOURCE_QUOTAS, namespace, name, 'status'), updated);
    } catch (e) {
      if (isNotFound(e)) return; // deleted meanwhile
      throw e; // 409: admission charged it since we read it; the queue retries with the fresh object
    }
  }
}
