// The decisions of a rolling update (kube's rolling.go) and of scaling a
// deployment mid-rollout (sync.go scale, proportional scaling), as pure
// functions: they take the ReplicaSets and return the new spec.replicas to
// write, in order. The controller writes them; effects are data.

import type { Deployment, ReplicaSet } from '../types';
import { byCreation } from '../types';
import { activeOnly, availableSum, isRollingUpdate, isSaturated, maxReplicasAnnotation, maxSurge, maxUnavailable, specSum } from './replicas';

export interface ScaleStep {
  rs: ReplicaSet;
  replicas: number;
}

const replicasOf = (rs: ReplicaSet): number => rs.spec.replicas ?? 0;

/** Applies steps to copies so later decisions see earlier ones (kube re-reads the updated RS). */
function withReplicas(rs: ReplicaSet, n: number): ReplicaSet {
  return { ...rs, spec: { ...rs.spec, replicas: n } };
}

/**
 * reconcileOldReplicaSets: how far the old ReplicaSets may shrink while at
 * least replicas - maxUnavailable pods stay available. First unhealthy old
 * pods go (cleanupUnhealthyReplicas), then healthy ones, oldest ReplicaSet first.
 */
export function planOldScaleDown(d: Deployment, oldRSs: ReplicaSet[], newRS: ReplicaSet | undefined): ScaleStep[] {
  const oldPods = specSum(oldRSs);
  if (oldPods === 0) return [];
  const allPods = specSum([...oldRSs, newRS]);
  const minAvailable = (d.spec.replicas ?? 0) - maxUnavailable(d);
  const newUnavailable = newRS ? replicasOf(newRS) - (newRS.status?.availableReplicas ?? 0) : 0;
  const maxScaledDown = allPods - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return [];

  const steps: ScaleStep[] = [];
  let olds = [...oldRSs].sort(byCreation);
  // cleanupUnhealthyReplicas
  let cleaned = 0;
  olds = olds.map((rs) => {
    if (cleaned >= maxScaledDown) return rs;
    const n = replicasOf(rs);
    const avail = rs.status?.availableReplicas ?? 0;
    if (n === 0 || n === avail) return rs;
    const down = Math.min(maxScaledDown - cleaned, n - avail);
    cleaned += down;
    const next = withReplicas(rs, n - down);
    steps.push({ rs: next, replicas: n - down });
    return next;
  });
  // scaleDownOldReplicaSetsForRollingUpdate
  const available = availableSum([...olds, newRS]);
  if (available > minAvailable) {
    const total = available - minAvailable;
    let done = 0;
    for (const rs of olds) {
      if (done >= total) break;
      const n = replicasOf(rs);
      if (n === 0) continue;
      const down = Math.min(n, total - done);
      done += down;
      steps.push({ rs: withReplicas(rs, n - down), replicas: n - down });
    }
  }
  return steps;
}

/** FindActiveOrLatest: the one ReplicaSet with pods, else the newest; undefined when several have pods. */
export function activeOrLatest(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const olds = [...oldRSs].sort((a, b) => byCreation(b, a));
  const active = activeOnly([...olds, newRS]);
  if (active.length === 0) return newRS ?? olds[0];
  if (active.length === 1) return active[0];
  return undefined;
}

/** getReplicaSetFraction: this ReplicaSet's share of the change, by its size before the scale. */
function fraction(rs: ReplicaSet, d: Deployment): number {
  const replicas = d.spec.replicas ?? 0;
  if (replicas === 0) return -replicasOf(rs);
  const maxNow = replicas + maxSurge(d);
  let before = maxReplicasAnnotation(rs);
  if (!before) {
    before = d.status?.replicas ?? 0;
    if (before === 0) return 0;
  }
  // integer.RoundToInt32 is math.Round: halves away from zero.
  const x = (replicasOf(rs) * maxNow) / before;
  const rounded = x < 0 ? -Math.round(-x) : Math.round(x);
  return rounded - replicasOf(rs);
}

function proportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const f = fraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(f, allowed) : Math.max(f, allowed);
}

/** ReplicaSetsBySizeNewer / BySizeOlder: larger first; ties newest (resp. oldest) first. */
function bySize(newerFirst: boolean) {
  return (a: ReplicaSet, b: ReplicaSet): number => {
    if (replicasOf(a) !== replicasOf(b)) return replicasOf(b) - replicasOf(a);
    return newerFirst ? byCreation(b, a) : byCreation(a, b);
  };
}

/**
 * scale(): a replicas change of the deployment itself. One active ReplicaSet
 * takes it all; a saturated new one means the old ones go to 0; otherwise,
 * during a rolling update, the change is spread in proportion to size, with
 * the leftover on the largest.
 */
export function planScale(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): { steps: ScaleStep[]; operation: 'up' | 'down' | '' } {
  const replicas = d.spec.replicas ?? 0;
  const one = activeOrLatest(newRS, oldRSs);
  if (one) return replicasOf(one) === replicas ? { steps: [], operation: '' } : { steps: [{ rs: one, replicas }], operation: replicasOf(one) < replicas ? 'up' : 'down' };
  if (isSaturated(d, newRS)) return { steps: activeOnly(oldRSs).map((rs) => ({ rs, replicas: 0 })), operation: 'down' };
  if (!isRollingUpdate(d)) return { steps: [], operation: '' };

  const all = activeOnly([...oldRSs, newRS]);
  const allowed = replicas > 0 ? replicas + maxSurge(d) : 0;
  const toAdd = allowed - specSum(all);
  let operation: 'up' | 'down' | '' = '';
  if (toAdd > 0) {
    all.sort(bySize(true));
    operation = 'up';
  } else if (toAdd < 0) {
    all.sort(bySize(false));
    operation = 'down';
  }
  let added = 0;
  const size = new Map<string, number>();
  for (const rs of all) {
    if (toAdd === 0) {
      size.set(rs.metadata.name!, replicasOf(rs));
      continue;
    }
    const p = proportion(rs, d, toAdd, added);
    size.set(rs.metadata.name!, replicasOf(rs) + p);
    added += p;
  }
  const steps = all.map((rs, i) => {
    let n = size.get(rs.metadata.name!)!;
    if (i === 0 && toAdd !== 0) n = Math.max(0, n + toAdd - added);
    return { rs, replicas: n };
  });
  // Every one is written: its size may stand but its desired-replicas annotation moves.
  return { steps, operation };
}
