// The ReplicaSet controller (kube's pkg/controller/replicaset): keeps as many
// active pods as spec.replicas asks for, created from the template with
// generateName `<rs>-` and a controller ownerReference, deleted least useful
// first; adopts matching orphans; writes status. Expectations keep a lagging
// cache from causing double creates.

import { RESOURCES, collectionPath, objectKey, objectPath, isNotFound, type ControllerContext } from '../../../client/kube';
import { isActive, isPodAvailable, isPodReady, runQueue, selectorMatches } from '../common';
import { controllerRef, rfc3339 } from '../metav1';
import type { Pod, ReplicaSet } from '../types';
import { controllerOf } from '../types';
import { Expectations } from './expectations';
import { podsToDelete } from './podsToDelete';
import { calculateRSStatus, rsStatusEqual } from './status';

/** kube's burstReplicas: at most this many creations or deletions per sync. */
const BURST = 500;

/** slowStartBatch: 1, 2, 4, … at a time; stops at the first batch with a failure. Returns successes and the first error. */
export async function slowStartBatch(count: number, fn: () => Promise<void>, initial = 1): Promise<{ ok: number; error?: unknown }> {
  let remaining = count;
  let ok = 0;
  for (let batch = Math.min(remaining, initial); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, fn));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    ok += results.filter((r) => r.status === 'fulfilled').length;
    if (failed) return { ok, error: failed.reason };
    remaining -= batch;
  }
  return { ok };
}

export function startReplicaSetController(ctx: ControllerContext): void {
  const rest = ctx.clients.rest;
  const recorder = ctx.recorder('replicaset-controller');
  const rsInf = ctx.informers.informer<ReplicaSet>(RESOURCES.replicasets);
  const podInf = ctx.informers.informer<Pod>(RESOURCES.pods);
  const exp = new Expectations(() => ctx.clock.now());
  const queue = runQueue(ctx, 'replicaset', sync);

  const enqueueOwner = (p: Pod): string | undefined => {
    const ref = controllerOf(p);
    if (!ref || ref.kind !== 'ReplicaSet') return undefined;
    const rs = rsInf.getByName(p.metadata.namespace, ref.name);
    if (!rs || rs.metadata.uid !== ref.uid) return undefined;
    const key = objectKey(rs);
    queue.add(key);
    return key;
  };
  const enqueueMatching = (p: Pod): void => {
    for (const rs of rsInf.byIndex('namespace', p.metadata.namespace ?? '')) if (selectorMatches(rs.spec.selector, p.metadata.labels)) queue.add(objectKey(rs));
  };

  rsInf.addEventHandler({ add: (rs) => queue.add(objectKey(rs)), update: (_o, rs) => queue.add(objectKey(rs)), delete: (rs) => { exp.delete(objectKey(rs)); queue.add(objectKey(rs)); } });
  podInf.addEventHandler({
    add: (p) => {
      if (p.metadata.deletionTimestamp) {
        const key = enqueueOwner(p);
        if (key) exp.deletionObserved(key);
        return;
      }
      const key = enqueueOwner(p);
      if (key) exp.creationObserved(key);
      else if (!controllerOf(p)) enqueueMatching(p);
    },
    update: (old, p) => {
      const key = enqueueOwner(p);
      if (key && p.metadata.deletionTimestamp && !old.metadata.deletionTimestamp) exp.deletionObserved(key);
      const oldRef = controllerOf(old);
      if (oldRef && oldRef.uid !== controllerOf(p)?.uid) enqueueOwner(old);
      if (!controllerOf(p)) enqueueMatching(p);
      // A pod that turns ready may become available only minReadySeconds later.
      if (key && !isPodReady(old) && isPodReady(p)) {
        const rs = rsInf.get(key);
        if (rs?.spec.minReadySeconds) queue.addAfter(key, rs.spec.minReadySeconds * 1000 + 1000);
      }
    },
    delete: (p) => {
      const key = enqueueOwner(p);
      if (key && !p.metadata.deletionTimestamp) exp.deletionObserved(key);
    },
  });

  async function sync(key: string): Promise<void> {
    const rs = rsInf.get(key);
    if (!rs) {
      exp.delete(key);
      return;
    }
    const needsSync = exp.satisfied(key);
    const ns = rs.metadata.namespace!;
    const pods: Pod[] = [];
    for (const p of podInf.byIndex('namespace', ns)) {
      if (!isActive(p)) continue;
      const ref = controllerOf(p);
      if (ref?.uid === rs.metadata.uid) pods.push(p);
      else if (!ref && !rs.metadata.deletionTimestamp && selectorMatches(rs.spec.selector, p.metadata.labels)) {
        const adopted = await adopt(rs, p);
        if (adopted) pods.push(adopted);
      }
    }
    let manageError: { reason: string; message: string; now: string } | undefined;
    if (needsSync && !rs.metadata.deletionTimestamp) manageError = await manage(rs, pods, key);
    const status = calculateRSStatus(rs, pods, ctx.clock.now(), manageError);
    if (!rsStatusEqual(rs.status, status)) {
      try {
        await rest.replace(objectPath(RESOURCES.replicasets, ns, rs.metadata.name!, 'status'), { ...rs, status });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    // Pods ready but not yet available: look again when they will be.
    const min = rs.spec.minReadySeconds ?? 0;
    if (min > 0 && pods.some((p) => isPodReady(p) && !isPodAvailable(p, min, ctx.clock.now()))) queue.addAfter(key, min * 1000);
    if (manageError) throw new Error(manageError.message);
  }

  async function adopt(rs: ReplicaSet, p: Pod): Promise<Pod | undefined> {
    const refs = [...(p.metadata.ownerReferences ?? []), controllerRef(rs, 'apps/v1', 'ReplicaSet')];
    try {
      return await rest.patch<Pod>(objectPath(RESOURCES.pods, p.metadata.namespace, p.metadata.name!), 'merge', { metadata: { ownerReferences: refs, uid: p.metadata.uid } });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  async function manage(rs: ReplicaSet, pods: Pod[], key: string): Promise<{ reason: string; message: string; now: string } | undefined> {
    const want = rs.spec.replicas ?? 0;
    const ns = rs.metadata.namespace!;
    let diff = pods.length - want;
    const now = rfc3339(ctx.clock.now());
    if (diff < 0) {
      diff = Math.min(-diff, BURST);
      exp.expectCreations(key, diff);
      const tpl = rs.spec.template ?? {};
      const body = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          generateName: `${rs.metadata.name}-`,
          labels: tpl.metadata?.labels,
          annotations: tpl.metadata?.annotations,
          finalizers: tpl.metadata?.finalizers,
          ownerReferences: [controllerRef(rs, 'apps/v1', 'ReplicaSet')],
        },
        spec: tpl.spec,
      };
      const { ok, error } = await slowStartBatch(diff, async () => {
        try {
          const created = await rest.create<Pod>(collectionPath(RESOURCES.pods, ns), body);
          recorder.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
        } catch (e) {
          exp.creationObserved(key);
          recorder.event(rs, 'Warning', 'FailedCreate', `Error creating: ${(e as Error).message}`);
          throw e;
        }
      });
      // Creations never started will never be observed.
      for (let i = ok; i < diff; i++) exp.creationObserved(key);
      if (error) return { reason: 'FailedCreate', message: (error as Error).message, now };
    } else if (diff > 0) {
      const victims = podsToDelete(pods, Math.min(diff, BURST));
      exp.expectDeletions(key, victims.length);
      let firstError: unknown;
      await Promise.all(
        victims.map(async (p) => {
          try {
            await rest.delete(objectPath(RESOURCES.pods, ns, p.metadata.name!));
            recorder.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
          } catch (e) {
            exp.deletionObserved(key);
            if (isNotFound(e)) return;
            recorder.event(rs, 'Warning', 'FailedDelete', `Error deleting: ${(e as Error).message}`);
            firstError ??= e;
          }
        }),
      );
      if (firstError) return { reason: 'FailedDelete', message: (firstError as Error).message, now };
    }
    return undefined;
  }
}

