// Which pods a shrinking ReplicaSet removes first (kube's ActivePods ordering,
// controller_utils.go): the least useful go first — unscheduled before
// scheduled, Pending before Unknown before Running, not ready before ready,
// ready for less time before ready longer, more restarts first, newer first.

import { isPodReady } from '../common';
import type { Pod } from '../types';

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function readySince(p: Pod): string {
  return p.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? '';
}
const restarts = (p: Pod): number => Math.max(0, ...(p.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));

/** Negative when a should be deleted before b. */
export function deleteFirst(a: Pod, b: Pod): number {
  const sa = a.spec?.nodeName ? 1 : 0;
  const sb = b.spec?.nodeName ? 1 : 0;
  if (sa !== sb) return sa - sb;
  const pa = PHASE_RANK[a.status?.phase ?? 'Pending'] ?? 0;
  const pb = PHASE_RANK[b.status?.phase ?? 'Pending'] ?? 0;
  if (pa !== pb) return pa - pb;
  const ra = isPodReady(a) ? 1 : 0;
  const rb = isPodReady(b) ? 1 : 0;
  if (ra !== rb) return ra - rb;
  if (ra && rb) {
    const ta = readySince(a);
    const tb = readySince(b);
    if (ta !== tb) return ta > tb ? -1 : 1; // ready more recently goes first
  }
  const xa = restarts(a);
  const xb = restarts(b);
  if (xa !== xb) return xb - xa;
  const ca = a.metadata.creationTimestamp ?? '';
  const cb = b.metadata.creationTimestamp ?? '';
  if (ca !== cb) return ca > cb ? -1 : 1; // newer first
  return 0;
}

export function podsToDelete(pods: Pod[], n: number): Pod[] {
  return [...pods].sort(deleteFirst).slice(0, Math.max(0, n));
}
