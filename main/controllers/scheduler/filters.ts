// The scheduler's filter plugins, in the default profile's order. A node
// fails at its first failing plugin (the framework stops there), and a plugin
// may give several reasons (NodeResourcesFit: every insufficient resource).
// "unresolvable" marks failures preemption cannot fix (kube's
// UnschedulableAndUnresolvable), which changes the preemption half of the
// FailedScheduling message.

import type { V1NodeSelectorRequirement, V1Pod, V1Taint } from '@kubernetes/client-node';
import type { NodeInfo } from './nodeInfo';
import { podRequest } from './podResources';
import { firstUntolerated, taintText, TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE, toleratesTaint } from './taints';

export interface FilterResult {
  reasons: string[];
  unresolvable: boolean;
}

type Filter = (pod: V1Pod, info: NodeInfo) => FilterResult | undefined;

export const MSG_UNSCHEDULABLE = 'node(s) were unschedulable';
export const MSG_AFFINITY = "node(s) didn't match Pod's node affinity/selector";

function nodeUnschedulable(pod: V1Pod, info: NodeInfo): FilterResult | undefined {
  if (!info.node.spec?.unschedulable) return undefined;
  const taint: V1Taint = { key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' };
  if ((pod.spec?.tolerations ?? []).some((t) => toleratesTaint(t, taint))) return undefined;
  return { reasons: [MSG_UNSCHEDULABLE], unresolvable: true };
}

/**
 * The node's taints; a node whose Ready condition is not True but that the
 * node lifecycle controller has not tainted yet counts as carrying the taint
 * it is about to get, so a pod is never bound to a node known to be down.
 */
export function effectiveTaints(info: NodeInfo): V1Taint[] {
  const taints = [...(info.node.spec?.taints ?? [])];
  const ready = info.node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True' && !taints.some((t) => t.key === TAINT_NOT_READY || t.key === TAINT_UNREACHABLE)) {
    taints.push({ key: ready?.status === 'Unknown' ? TAINT_UNREACHABLE : TAINT_NOT_READY, effect: 'NoSchedule' });
  }
  return taints;
}

function taintToleration(pod: V1Pod, info: NodeInfo): FilterResult | undefined {
  const taint = firstUntolerated(effectiveTaints(info), pod.spec?.tolerations ?? [], ['NoSchedule', 'NoExecute']);
  return taint ? { reasons: [`node(s) had untolerated taint ${taintText(taint)}`], unresolvable: true } : undefined;
}

function matchRequirement(labels: Record<string, string>, r: V1NodeSelectorRequirement): boolean {
  const v = labels[r.key];
  const vals = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return v !== undefined && vals.includes(v);
    case 'NotIn':
      return v === undefined || !vals.includes(v);
    case 'Exists':
      return v !== undefined;
    case 'DoesNotExist':
      return v === undefined;
    case 'Gt':
    case 'Lt': {
      if (v === undefined || vals.length !== 1) return false;
      const a = Number.parseInt(v, 10);
      const b = Number.parseInt(vals[0]!, 10);
      if (Number.isNaN(a) || Number.isNaN(b)) return false;
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** nodeSelector, then required node affinity (terms are ORed, expressions ANDed). */
export function matchesNodeSelector(pod: V1Pod, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms) return true;
  return terms.some((term) => {
    const exprs = term.matchExpressions ?? [];
    // An empty term matches nothing (kube's nodeaffinity semantics).
    if (exprs.length === 0 && (term.matchFields ?? []).length === 0) return false;
    return exprs.every((r) => matchRequirement(labels, r));
  });
}

function nodeAffinity(pod: V1Pod, info: NodeInfo): FilterResult | undefined {
  return matchesNodeSelector(pod, info.node.metadata?.labels ?? {}) ? undefined : { reasons: [MSG_AFFINITY], unresolvable: true };
}

function nodeResourcesFit(pod: V1Pod, info: NodeInfo): FilterResult | undefined {
  const reasons: string[] = [];
  if (info.pods.length + 1 > info.allocatable.pods) reasons.push('Too many pods');
  const req = podRequest(pod);
  if (req.cpu > 0 && info.requested.cpu + req.cpu > info.allocatable.cpu) reasons.push('Insufficient cpu');
  if (req.memory > 0 && info.requested.memory + req.memory > info.allocatable.memory) reasons.push('Insufficient memory');
  return reasons.length ? { reasons, unresolvable: false } : undefined;
}

/** Default profile order (NodeName and NodePorts are not modelled). */
export const FILTERS: ReadonlyArray<[string, Filter]> = [
  ['NodeUnschedulable', nodeUnschedulable],
  ['TaintToleration', taintToleration],
  ['NodeAffinity', nodeAffinity],
  ['NodeResourcesFit', nodeResourcesFit],
];

/** undefined when the node fits; otherwise the first failing plugin's result. */
export function runFilters(pod: V1Pod, info: NodeInfo): FilterResult | undefined {
  for (const [, f] of FILTERS) {
    const r = f(pod, info);
    if (r) return r;
  }
  return undefined;
}

function histogram(lines: string[]): string {
  const counts = new Map<string, number>();
  for (const l of lines) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k}`).sort().join(', ');
}

/**
 * kube's FitError text plus the default preemption plugin's PostFilter
 * message, e.g. "0/3 nodes are available: 3 Insufficient cpu. preemption:
 * 0/3 nodes are available: 3 No preemption victims found for incoming pod..".
 * Pilothouse pods all have priority 0, so preemption never finds victims.
 */
export function fitErrorMessage(numNodes: number, failures: FilterResult[]): string {
  // With no nodes at all the scheduler fails earlier, with ErrNoNodesAvailable.
  if (numNodes === 0) return 'no nodes available to schedule pods';
  let msg = `0/${numNodes} nodes are available:`;
  const reasons = histogram(failures.flatMap((f) => f.reasons));
  if (reasons) msg += ` ${reasons}.`;
  const pre = histogram(failures.map((f) => (f.unresolvable ? 'Preemption is not helpful for scheduling' : 'No preemption victims found for incoming pod')));
  // The PostFilter message ends in "." and FitError appends its own ".".
  msg += ` preemption: 0/${numNodes} nodes are available: ${pre}..`;
  return msg;
}
