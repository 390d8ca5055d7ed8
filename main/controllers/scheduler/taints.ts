// Taints and tolerations, as k8s.io/api's ToleratesTaint: an empty toleration
// key with operator Exists tolerates every taint; an empty effect tolerates
// every effect; Equal (or no operator) compares values.

import type { V1Taint, V1Toleration } from '@kubernetes/client-node';

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

export function toleratesTaint(t: V1Toleration, taint: V1Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
      // An empty key is only valid with Exists; such a toleration matches nothing here.
      return !!t.key && (t.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/** The first taint (with one of the effects) that no toleration tolerates. */
export function firstUntolerated(taints: V1Taint[], tolerations: V1Toleration[], effects: string[]): V1Taint | undefined {
  return taints.find((taint) => effects.includes(taint.effect) && !tolerations.some((t) => toleratesTaint(t, taint)));
}

/** "{key: value}" as the scheduler's TaintToleration filter prints a taint. */
export function taintText(taint: V1Taint): string {
  return `{${taint.key}: ${taint.value ?? ''}}`;
}
