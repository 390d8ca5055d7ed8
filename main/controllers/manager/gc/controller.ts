// The garbage collector (kube's pkg/controller/garbagecollector): the
// ownerReferences graph is read from the informers' owner-uid index; a uid
// index says which owners exist. Background: dependents whose owners are all
// gone are deleted. Foreground: an owner carrying `foregroundDeletion` loses
// that finalizer once no dependent blocks it. Orphan: an owner carrying
// `orphan` has its references removed from every dependent, then the finalizer.

import { RESOURCES, isConflict, isNotFound, objectKey, objectPath, type ControllerContext, type ResourceRef, type SharedIndexInformer } from '../../../client/kube';
import { runQueue } from '../common';
import type { KObject, OwnerReference } from '../types';
import { blockingDependents, decideDependent, ownerState, withoutFinalizer, type OwnerState } from './decide';

/** The kinds whose objects may own or be owned here. */
export const GC_RESOURCES: ResourceRef[] = [
  RESOURCES.deployments,
  RESOURCES.replicasets,
  RESOURCES.pods,
  RESOURCES.services,
  RESOURCES.endpoints,
  RESOURCES.configmaps,
  RESOURCES.secrets,
  RESOURCES.serviceaccounts,
];

const apiVersionOf = (r: ResourceRef): string => (r.group ? `${r.group}/${r.version}` : r.version);

export function startGarbageCollector(ctx: ControllerContext): void {
  const rest = ctx.clients.rest;
  const informers = new Map<string, { ref: ResourceRef; inf: SharedIndexInformer<KObject> }>();
  /** uid → where the object lives, for owner lookups and work items. */
  const byUid = new Map<string, { res: string; key: string }>();
  const resKey = (apiVersion: string, kind: string): string => `${apiVersion}|${kind}`;

  const queue = runQueue(ctx, 'garbagecollector', sync);
  const item = (res: string, o: KObject): string => `${res}#${objectKey(o)}`;

  for (const ref of GC_RESOURCES) {
    const inf = ctx.informers.informer<KObject>(ref);
    const res = resKey(apiVersionOf(ref), ref.kind);
    informers.set(res, { ref, inf });
    inf.addEventHandler({
      add: (o) => observe(res, o),
      update: (old, o) => {
        observe(res, o);
        // A reference dropped or a deletion begun may free or unblock owners.
        for (const r of old.metadata.ownerReferences ?? []) enqueueUid(r.uid);
      },
      delete: (o) => {
        if (o.metadata.uid) byUid.delete(o.metadata.uid);
        for (const d of dependents(o.metadata.uid!)) enqueueObj(d);
        for (const r of o.metadata.ownerReferences ?? []) enqueueUid(r.uid);
      },
    });
  }
  // Rebuilt lazily: dependents live in every informer's owner-uid index.
  function dependents(uid: string): { res: string; obj: KObject }[] {
    const out: { res: string; obj: KObject }[] = [];
    for (const [res, { inf }] of informers) for (const obj of inf.byIndex('ownerUid', uid)) out.push({ res, obj });
    return out;
  }
  function observe(res: string, o: KObject): void {
    if (o.metadata.uid) byUid.set(o.metadata.uid, { res, key: objectKey(o) });
    if ((o.metadata.ownerReferences ?? []).length > 0) queue.add(item(res, o));
    if (o.metadata.deletionTimestamp) {
      const f = o.metadata.finalizers ?? [];
      if (f.includes('orphan') || f.includes('foregroundDeletion')) queue.add(item(res, o));
      for (const d of dependents(o.metadata.uid!)) enqueueObj(d);
    }
  }
  function enqueueObj(d: { res: string; obj: KObject }): void {
    queue.add(item(d.res, d.obj));
  }
  function enqueueUid(uid: string): void {
    const at = byUid.get(uid);
    if (at) queue.add(`${at.res}#${at.key}`);
  }

  function pathOf(res: string, o: KObject): string {
    return objectPath(informers.get(res)!.ref, o.metadata.namespace, o.metadata.name!);
  }

  async function sync(work: string): Promise<void> {
    const hash = work.indexOf('#');
    const res = work.slice(0, hash);
    const entry = informers.get(res);
    const obj = entry?.inf.get(work.slice(hash + 1));
    if (!entry || !obj) return;
    const fin = obj.metadata.finalizers ?? [];
    if (obj.metadata.deletionTimestamp && fin.includes('orphan')) return orphanDependents(res, obj);
    if (obj.metadata.deletionTimestamp && fin.includes('foregroundDeletion')) return processDeletingDependents(res, obj);
    if ((obj.metadata.ownerReferences ?? []).length > 0) return attemptToDelete(res, obj);
  }

  /** The owner as the cache knows it, confirmed with a live read when the cache has nothing (it may lag). */
  async function lookupOwner(ns: string | undefined, ref: OwnerReference): Promise<KObject | undefined | 'unknown'> {
    const e = informers.get(resKey(ref.apiVersion, ref.kind));
    if (!e) return 'unknown';
    const cached = e.inf.getByName(e.ref.namespaced ? ns : undefined, ref.name);
    if (cached && cached.metadata.uid === ref.uid) return cached;
    try {
      return await rest.get<KObject>(objectPath(e.ref, e.ref.namespaced ? ns : undefined, ref.name));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async function attemptToDelete(res: string, obj: KObject): Promise<void> {
    const states = new Map<string, OwnerState>();
    for (const ref of obj.metadata.ownerReferences ?? []) {
      const owner = await lookupOwner(obj.metadata.namespace, ref);
      states.set(ref.uid, owner === 'unknown' ? 'alive' : ownerState(owner, ref));
    }
    const verdict = decideDependent(obj, states, dependents(obj.metadata.uid!).length > 0);
    const path = pathOf(res, obj);
    try {
      if (verdict.action === 'patchRefs') {
        await rest.patch(path, 'merge', { metadata: { uid: obj.metadata.uid, ownerReferences: verdict.ownerReferences } });
      } else if (verdict.action === 'delete') {
        await rest.delete(path, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: verdict.propagationPolicy, preconditions: { uid: obj.metadata.uid } });
      }
    } catch (e) {
      if (isNotFound(e) || isConflict(e)) return; // gone already, or replaced by a new object of the same name
      throw e;
    }
  }

  async function processDeletingDependents(res: string, owner: KObject): Promise<void> {
    const deps = dependents(owner.metadata.uid!);
    // Dependents not deleting yet are deleted through attemptToDelete (the owner is 'waiting' now).
    for (const d of deps) if (!d.obj.metadata.deletionTimestamp) queue.add(item(d.res, d.obj));
    if (blockingDependents(owner.metadata.uid!, deps.map((d) => d.obj)).length > 0) return;
    await removeFinalizer(res, owner, 'foregroundDeletion');
  }

  async function orphanDependents(res: string, owner: KObject): Promise<void> {
    for (const d of dependents(owner.metadata.uid!)) {
      const refs = (d.obj.metadata.ownerReferences ?? []).filter((r) => r.uid !== owner.metadata.uid);
      try {
        await rest.patch(pathOf(d.res, d.obj), 'merge', { metadata: { uid: d.obj.metadata.uid, ownerReferences: refs.length ? refs : null } });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    await removeFinalizer(res, owner, 'orphan');
  }

  async function removeFinalizer(res: string, owner: KObject, name: string): Promise<void> {
    try {
      await rest.patch(pathOf(res, owner), 'merge', { metadata: { uid: owner.metadata.uid, resourceVersion: owner.metadata.resourceVersion, finalizers: withoutFinalizer(owner, name) } });
    } catch (e) {
      if (isNotFound(e)) return;
      throw e; // a conflict re-queues with the fresh object
    }
  }
}
