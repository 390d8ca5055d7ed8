// The node lifecycle controller's decisions, pure (kube-controller-manager's
// pkg/controller/nodelifecycle and the taint-eviction controller):
//   1. health: a node whose Lease renewTime and Ready heartbeat have not moved
//      for the grace period — measured on our own clock from when we last saw
//      either change, so clock skew between nodes does not matter — gets every
//      condition set to Unknown (NodeStatusUnknown, "Kubelet stopped posting
//      node status.").
//   2. taints: Ready=Unknown → node.kubernetes.io/unreachable, Ready=False →
//      node.kubernetes.io/not-ready, each NoSchedule and NoExecute; Ready=True
//      → neither.
//   3. eviction: a pod on a node with NoExecute taints it does not tolerate
//      is deleted at once; one tolerating them all with tolerationSeconds is
//      deleted that long after the taint was added; without
//      tolerationSeconds it stays.

import type { V1Node, V1NodeCondition, V1Pod, V1Taint } from '@kubernetes/client-node';
import { TAINT_NOT_READY, TAINT_UNREACHABLE, toleratesTaint } from '../scheduler/taints';

export const NODE_CONDITION_TYPES = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

export interface HeartbeatSeen {
  /** Lease renewTime and Ready.lastHeartbeatTime as last seen. */
  lease: string;
  ready: string;
  /** Our clock when either last changed. */
  probeMs: number;
}

const asTime = (t: unknown): string => (t === undefined || t === null ? '' : t instanceof Date ? t.toISOString() : String(t));

/** The updated record for a node given its current lease renewTime (if any). */
export function observeHeartbeat(prev: HeartbeatSeen | undefined, node: V1Node, leaseRenewTime: unknown, nowMs: number): HeartbeatSeen {
  const ready = asTime(node.status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime);
  const lease = asTime(leaseRenewTime);
  if (!prev || prev.lease !== lease || prev.ready !== ready) return { lease, ready, probeMs: nowMs };
  return prev;
}

/**
 * The node's conditions after a missed grace period, or undefined when there
 * is nothing to change (heartbeat fresh, or already Unknown).
 */
export function conditionsAfterTimeout(node: V1Node, seen: HeartbeatSeen, nowMs: number, gracePeriodMs: number, now: string): Record<string, unknown>[] | undefined {
  if (nowMs - seen.probeMs <= gracePeriodMs) return undefined;
  const current = node.status?.conditions ?? [];
  let changed = false;
  const out: Record<string, unknown>[] = current.map((c) => ({ ...c }) as Record<string, unknown>);
  for (const type of NODE_CONDITION_TYPES) {
    const c = current.find((x) => x.type === type);
    if (!c) {
      changed = true;
      out.push({ type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: now, lastTransitionTime: now });
    } else if (c.status !== 'Unknown') {
      changed = true;
      const i = current.indexOf(c);
      out[i] = { ...c, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: now };
    }
  }
  return changed ? out : undefined;
}

function readyStatus(node: V1Node): string | undefined {
  return node.status?.conditions?.find((c: V1NodeCondition) => c.type === 'Ready')?.status;
}

/** The node's taints with the lifecycle taints it should carry; undefined when they are already right. */
export function desiredTaints(node: V1Node, now: string): V1Taint[] | undefined {
  const status = readyStatus(node);
  const want = status === 'Unknown' ? TAINT_UNREACHABLE : status === 'False' ? TAINT_NOT_READY : undefined;
  const current = node.spec?.taints ?? [];
  const ours = (t: V1Taint): boolean => (t.key === TAINT_UNREACHABLE || t.key === TAINT_NOT_READY) && (t.effect === 'NoSchedule' || t.effect === 'NoExecute');
  const keep = current.filter((t) => !ours(t) || t.key === want);
  const out = [...keep];
  if (want) {
    if (!keep.some((t) => t.key === want && t.effect === 'NoSchedule')) out.push({ key: want, effect: 'NoSchedule' });
    if (!keep.some((t) => t.key === want && t.effect === 'NoExecute')) out.push({ key: want, effect: 'NoExecute', timeAdded: now as unknown as Date });
  }
  const same = out.length === current.length && out.every((t) => current.includes(t));
  return same ? undefined : out;
}

/**
 * When (ms since the epoch) the pod must be evicted from a node with these
 * taints: 'now' (an untolerated NoExecute taint), a time, or undefined (never).
 * taintAddedMs gives the time each NoExecute taint appeared; untoleratedDelayMs
 * (--pod-eviction-timeout, 0 by default) postpones untolerated evictions.
 */
export function evictionDue(pod: V1Pod, taints: V1Taint[], taintAddedMs: (t: V1Taint) => number, untoleratedDelayMs = 0): number | 'now' | undefined {
  const noExecute = taints.filter((t) => t.effect === 'NoExecute');
  if (noExecute.length === 0) return undefined;
  const tolerations = pod.spec?.tolerations ?? [];
  let due: number | undefined;
  for (const taint of noExecute) {
    const matching = tolerations.filter((t) => toleratesTaint(t, taint));
    // Untolerated: at once, as the taint manager does (or after --pod-eviction-timeout when one is set).
    if (matching.length === 0) return untoleratedDelayMs > 0 ? taintAddedMs(taint) + untoleratedDelayMs : 'now';
    // The shortest tolerationSeconds among the tolerations that match; none set → forever.
    const secs = matching.map((t) => t.tolerationSeconds).filter((s): s is number => typeof s === 'number');
    if (secs.length === 0) continue;
    const at = taintAddedMs(taint) + Math.max(0, Math.min(...secs)) * 1000;
    due = due === undefined ? at : Math.min(due, at);
  }
  return due;
}
