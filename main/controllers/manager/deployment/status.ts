// A deployment's status and conditions (sync.go calculateStatus, progress.go
// syncRolloutStatus): counts summed over its ReplicaSets, Available by
// minimum availability, Progressing with kube's reasons and messages so that
// `kubectl rollout status` reads it as kube's own.

import { rfc3339 } from '../metav1';
import type { Condition, Deployment, DeploymentStatus, ReplicaSet } from '../types';
import { actualSum, availableSum, maxUnavailable, readySum, specSum } from './replicas';

export const REASON = {
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
  newRSAvailable: 'NewReplicaSetAvailable',
  replicaSetUpdated: 'ReplicaSetUpdated',
  newReplicaSet: 'NewReplicaSetCreated',
  foundNewRS: 'FoundNewReplicaSet',
  timedOut: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
} as const;

export function newCondition(type: string, status: Condition['status'], reason: string, message: string, now: string): Condition {
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

export const getCondition = (s: DeploymentStatus | undefined, type: string): Condition | undefined => s?.conditions?.find((c) => c.type === type);

/**
 * SetDeploymentCondition: same status and reason → leave it as it is
 * (timestamps and message too); same status → keep lastTransitionTime.
 */
export function setCondition(s: DeploymentStatus, c: Condition): void {
  const cur = getCondition(s, c.type);
  if (cur && cur.status === c.status && cur.reason === c.reason) return;
  const next = { ...c };
  if (cur && cur.status === c.status) next.lastTransitionTime = cur.lastTransitionTime;
  s.conditions = [...(s.conditions ?? []).filter((x) => x.type !== c.type), next];
}

export function removeCondition(s: DeploymentStatus, type: string): void {
  if (!s.conditions) return;
  s.conditions = s.conditions.filter((c) => c.type !== type);
}

export function calculateStatus(allRSs: (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment, now: string): DeploymentStatus {
  const available = availableSum(allRSs);
  const total = specSum(allRSs);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation,
    replicas: actualSum(allRSs),
    updatedReplicas: actualSum([newRS]),
    readyReplicas: readySum(allRSs),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
    collisionCount: d.status?.collisionCount,
    conditions: (d.status?.conditions ?? []).map((c) => ({ ...c })),
  };
  if (available >= (d.spec.replicas ?? 0) - maxUnavailable(d)) {
    setCondition(status, newCondition('Available', 'True', REASON.minimumReplicasAvailable, 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition('Available', 'False', REASON.minimumReplicasUnavailable, 'Deployment does not have minimum availability.', now));
  }
  return status;
}

/** DeploymentComplete: every replica updated and available, and this generation observed. */
export function deploymentComplete(d: Deployment, s: DeploymentStatus): boolean {
  const r = d.spec.replicas ?? 0;
  return (s.updatedReplicas ?? 0) === r && (s.replicas ?? 0) === r && (s.availableReplicas ?? 0) === r && (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
}

/** DeploymentProgressing: any count moved the right way since the stored status. */
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || newOld < oldOld || (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0);
}

export const hasProgressDeadline = (d: Deployment): boolean => d.spec.progressDeadlineSeconds !== undefined && d.spec.progressDeadlineSeconds !== 2147483647;

/** DeploymentTimedOut: no progress for progressDeadlineSeconds since the Progressing condition last moved. */
export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, nowMs: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(s, 'Progressing');
  if (!c) return false;
  if (c.reason === REASON.newRSAvailable) return false;
  if (c.reason === REASON.timedOut) return true;
  const from = Date.parse(c.lastUpdateTime ?? '');
  return Number.isFinite(from) && nowMs > from + (d.spec.progressDeadlineSeconds ?? 0) * 1000;
}

/**
 * The status syncRolloutStatus would write (before the ReplicaFailure copy):
 * calculateStatus plus Progressing — complete → NewReplicaSetAvailable,
 * progressing → ReplicaSetUpdated (lastTransitionTime kept while True),
 * stuck past the deadline → ProgressDeadlineExceeded.
 */
export function rolloutStatus(allRSs: (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment, nowMs: number): DeploymentStatus {
  const now = rfc3339(nowMs);
  const s = calculateStatus(allRSs, newRS, d, now);
  if (!hasProgressDeadline(d)) removeCondition(s, 'Progressing');
  const cur = getCondition(d.status, 'Progressing');
  const complete = s.replicas === s.updatedReplicas && cur?.reason === REASON.newRSAvailable;
  if (hasProgressDeadline(d) && !complete) {
    const who = newRS ? `ReplicaSet "${newRS.metadata.name}"` : `Deployment "${d.metadata.name}"`;
    if (deploymentComplete(d, s)) {
      setCondition(s, newCondition('Progressing', 'True', REASON.newRSAvailable, `${who} has successfully progressed.`, now));
    } else if (deploymentProgressing(d, s)) {
      const c = newCondition('Progressing', 'True', REASON.replicaSetUpdated, `${who} is progressing.`, now);
      if (cur) {
        if (cur.status === 'True') c.lastTransitionTime = cur.lastTransitionTime;
        removeCondition(s, 'Progressing');
      }
      setCondition(s, c);
    } else if (deploymentTimedOut(d, s, nowMs)) {
      setCondition(s, newCondition('Progressing', 'False', REASON.timedOut, `${who} has timed out progressing.`, now));
    }
  }
  return s;
}

/** Go's reflect.DeepEqual on the JSON forms, absent and undefined alike. */
export function statusEqual(a: DeploymentStatus | undefined, b: DeploymentStatus | undefined): boolean {
  return JSON.stringify(norm(a ?? {})) === JSON.stringify(norm(b ?? {}));
}
function norm(s: DeploymentStatus): Record<string, unknown> {
  const keys = ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'terminatingReplicas', 'collisionCount', 'conditions'] as const;
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = s[k];
    if (v === undefined || v === 0 || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = k === 'conditions' ? (v as Condition[]).map((c) => [c.type, c.status, c.reason, c.message, c.lastUpdateTime, c.lastTransitionTime]) : v;
  }
  return out;
}
