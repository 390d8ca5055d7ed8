// A ReplicaSet's status (replica_set_utils.go calculateStatus): pods it owns
// and that are active, how many carry the full template labels, how many are
// ready, and how many have been ready for minReadySeconds.

import { isPodAvailable, isPodReady, setMatches } from '../common';
import type { Pod, ReplicaSet, ReplicaSetStatus } from '../types';

export function calculateRSStatus(rs: ReplicaSet, pods: Pod[], nowMs: number, manageError?: { reason: string; message: string; now: string }): ReplicaSetStatus {
  const templateLabels = rs.spec.template?.metadata?.labels ?? {};
  let fully = 0;
  let ready = 0;
  let available = 0;
  for (const p of pods) {
    if (setMatches(templateLabels, p.metadata.labels)) fully++;
    if (isPodReady(p)) {
      ready++;
      if (isPodAvailable(p, rs.spec.minReadySeconds ?? 0, nowMs)) available++;
    }
  }
  let conditions = (rs.status?.conditions ?? []).map((c) => ({ ...c }));
  const failure = conditions.find((c) => c.type === 'ReplicaFailure');
  if (manageError && !failure) {
    conditions.push({ type: 'ReplicaFailure', status: 'True', lastTransitionTime: manageError.now, reason: manageError.reason, message: manageError.message });
  } else if (!manageError && failure) {
    conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
  }
  return {
    replicas: pods.length,
    fullyLabeledReplicas: fully,
    readyReplicas: ready,
    availableReplicas: available,
    observedGeneration: rs.metadata.generation,
    conditions: conditions.length ? conditions : undefined,
  };
}

export function rsStatusEqual(a: ReplicaSetStatus | undefined, b: ReplicaSetStatus): boolean {
  const n = (s: ReplicaSetStatus | undefined): string =>
    JSON.stringify([s?.replicas ?? 0, s?.fullyLabeledReplicas ?? 0, s?.readyReplicas ?? 0, s?.availableReplicas ?? 0, s?.observedGeneration ?? 0, (s?.conditions ?? []).map((c) => [c.type, c.status, c.reason])]);
  return n(a) === n(b);
}
