// The garbage collector's decisions (kube's garbagecollector.go
// attemptToDeleteItem / processDeletingDependentsItem / orphanDependents), as
// pure functions over what the caches say. The controller turns the verdicts
// into API calls.

import type { KObject, OwnerReference } from '../types';

export type OwnerState = 'alive' | 'waiting' | 'dangling';

export type DependentVerdict =
  | { action: 'keep' }
  /** Some owners are gone or deleting but a solid one remains: drop refs to the dangling, unblock the waiting. */
  | { action: 'patchRefs'; ownerReferences: OwnerReference[] }
  | { action: 'delete'; propagationPolicy: 'Background' | 'Foreground' | 'Orphan' };

/**
 * attemptToDeleteItem for an object with ownerReferences: owners are alive
 * (solid), waiting (being deleted in the foreground) or dangling (gone, or
 * the uid differs). No solid owner left → delete it; foreground when a
 * waiting owner must also wait for this object's own dependents.
 */
export function decideDependent(obj: KObject, owners: Map<string, OwnerState>, hasDependents: boolean): DependentVerdict {
  const refs = obj.metadata.ownerReferences ?? [];
  if (refs.length === 0 || obj.metadata.deletionTimestamp) return { action: 'keep' };
  const state = (r: OwnerReference): OwnerState => owners.get(r.uid) ?? 'alive';
  const solid = refs.filter((r) => state(r) === 'alive');
  const dangling = refs.filter((r) => state(r) === 'dangling');
  const waiting = refs.filter((r) => state(r) === 'waiting');
  if (solid.length > 0) {
    if (dangling.length === 0 && waiting.every((r) => !r.blockOwnerDeletion)) return { action: 'keep' };
    const kept = refs.filter((r) => state(r) !== 'dangling').map((r) => (state(r) === 'waiting' ? { ...r, blockOwnerDeletion: false } : r));
    return { action: 'patchRefs', ownerReferences: kept };
  }
  if (waiting.length > 0 && hasDependents) {
    // The waiting owner stays until this object's own dependents are gone too:
    // this object keeps blocking it while it deletes its dependents in the foreground.
    return { action: 'delete', propagationPolicy: 'Foreground' };
  }
  const fin = obj.metadata.finalizers ?? [];
  const policy = fin.includes('orphan') ? 'Orphan' : fin.includes('foregroundDeletion') ? 'Foreground' : 'Background';
  return { action: 'delete', propagationPolicy: policy };
}

/** The state of an owner object as the caches and a live read report it. */
export function ownerState(owner: KObject | undefined, ref: OwnerReference): OwnerState {
  if (!owner || owner.metadata.uid !== ref.uid) return 'dangling';
  if (owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes('foregroundDeletion')) return 'waiting';
  return 'alive';
}

/** Foreground: the owner's finalizer comes off when no dependent still blocks it. */
export function blockingDependents(ownerUid: string, dependents: KObject[]): KObject[] {
  return dependents.filter((d) => (d.metadata.ownerReferences ?? []).some((r) => r.uid === ownerUid && r.blockOwnerDeletion === true));
}

export function withoutFinalizer(obj: KObject, name: string): string[] {
  return (obj.metadata.finalizers ?? []).filter((f) => f !== name);
}
