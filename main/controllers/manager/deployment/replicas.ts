// Replica arithmetic of kube's deployment util (deployment_util.go): int-or-
// percent scaling, maxSurge/maxUnavailable fenceposts, and the sums over a
// deployment's ReplicaSets that rolling updates and status are built from.

import type { Deployment, IntOrString, ReplicaSet } from '../types';

/** intstr.GetScaledValueFromIntOrPercent: an int as is, "N%" of total rounded up or down. */
export function scaledValue(v: IntOrString, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  const m = /^(-?\d+)%$/.exec(v);
  if (!m) {
    if (/^-?\d+$/.test(v)) return Number(v);
    throw new Error(`invalid value for IntOrString: invalid value "${v}": must be an integer or a percentage (e.g. 5%)`);
  }
  const pct = Number(m[1]);
  return roundUp ? Math.ceil((pct * total) / 100) : Math.floor((pct * total) / 100);
}

export const isRollingUpdate = (d: Deployment): boolean => (d.spec.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';

/**
 * ResolveFenceposts: surge rounds up, unavailable down; both zero would
 * deadlock a rollout, so unavailable becomes 1.
 */
export function resolveFenceposts(maxSurge: IntOrString | undefined, maxUnavailable: IntOrString | undefined, desired: number): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  let unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function maxSurge(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0;
  const ru = d.spec.strategy?.rollingUpdate;
  return resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, d.spec.replicas ?? 0).surge;
}

export function maxUnavailable(d: Deployment): number {
  const replicas = d.spec.replicas ?? 0;
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  const ru = d.spec.strategy?.rollingUpdate;
  return Math.min(resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicas).unavailable, replicas);
}

const sum = (rss: (ReplicaSet | undefined)[], f: (rs: ReplicaSet) => number): number => rss.reduce((n, rs) => n + (rs ? f(rs) : 0), 0);

/** Sum of spec.replicas (GetReplicaCountForReplicaSets). */
export const specSum = (rss: (ReplicaSet | undefined)[]): number => sum(rss, (rs) => rs.spec.replicas ?? 0);
/** Sum of status.replicas (GetActualReplicaCountForReplicaSets). */
export const actualSum = (rss: (ReplicaSet | undefined)[]): number => sum(rss, (rs) => rs.status?.replicas ?? 0);
export const readySum = (rss: (ReplicaSet | undefined)[]): number => sum(rss, (rs) => rs.status?.readyReplicas ?? 0);
export const availableSum = (rss: (ReplicaSet | undefined)[]): number => sum(rss, (rs) => rs.status?.availableReplicas ?? 0);

/** FilterActiveReplicaSets: those asked for at least one pod. */
export const activeOnly = (rss: (ReplicaSet | undefined)[]): ReplicaSet[] => rss.filter((rs): rs is ReplicaSet => !!rs && (rs.spec.replicas ?? 0) > 0);

/**
 * NewRSNewReplicas: how far the new ReplicaSet may grow now. Rolling: up to
 * replicas + maxSurge pods in total across all ReplicaSets; Recreate: all at once.
 */
export function newRSNewReplicas(d: Deployment, allRSs: (ReplicaSet | undefined)[], newRS: ReplicaSet): number {
  const replicas = d.spec.replicas ?? 0;
  const cur = newRS.spec.replicas ?? 0;
  if (!isRollingUpdate(d)) return replicas;
  const surge = scaledValue(d.spec.strategy?.rollingUpdate?.maxSurge ?? 0, replicas, true);
  const current = specSum(allRSs);
  const maxTotal = replicas + surge;
  if (current >= maxTotal) return cur;
  return cur + Math.min(maxTotal - current, replicas - cur);
}

export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';

function intAnnotation(rs: ReplicaSet, key: string): number | undefined {
  const v = rs.metadata.annotations?.[key];
  if (v === undefined || !/^-?\d+$/.test(v)) return undefined;
  return Number(v);
}
export const desiredReplicasAnnotation = (rs: ReplicaSet): number | undefined => intAnnotation(rs, DESIRED_REPLICAS);
export const maxReplicasAnnotation = (rs: ReplicaSet): number | undefined => intAnnotation(rs, MAX_REPLICAS);

/** SetReplicasAnnotations: true when either annotation changed. */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const a = (rs.metadata.annotations ??= {});
  const d = String(desired);
  const m = String(max);
  if (a[DESIRED_REPLICAS] === d && a[MAX_REPLICAS] === m) return false;
  a[DESIRED_REPLICAS] = d;
  a[MAX_REPLICAS] = m;
  return true;
}

/** IsSaturated: the new ReplicaSet alone runs the whole deployment, all available. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const replicas = d.spec.replicas ?? 0;
  return desiredReplicasAnnotation(rs) === replicas && (rs.spec.replicas ?? 0) === replicas && (rs.status?.availableReplicas ?? 0) === replicas;
}
