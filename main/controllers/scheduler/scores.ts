// Scoring the feasible nodes. Two plugins, each normalised to 0..100 and
// weighted as in the default profile: NodeResourcesFit with the
// LeastAllocated strategy (weight 1), and spreading the pods of one owner
// across nodes (PodTopologySpread's default hostname constraint, weight 2).
// Ties go to a random winner (kube samples among equals), with the random
// source injected so tests are deterministic.

import type { V1Pod } from '@kubernetes/client-node';
import type { NodeInfo } from './nodeInfo';
import { podRequest } from './podResources';

export const MAX_NODE_SCORE = 100;

/** LeastAllocated: the mean over cpu and memory of free fraction after placing the pod. */
export function leastAllocatedScore(pod: V1Pod, info: NodeInfo): number {
  const req = podRequest(pod, true);
  const one = (requested: number, capacity: number): number => {
    if (capacity <= 0 || requested > capacity) return 0;
    return Math.floor(((capacity - requested) * MAX_NODE_SCORE) / capacity);
  };
  const cpu = one(info.nonZeroRequested.cpu + req.cpu, info.allocatable.cpu);
  const mem = one(info.nonZeroRequested.memory + req.memory, info.allocatable.memory);
  return Math.floor((cpu + mem) / 2);
}

function controllerUid(pod: V1Pod): string | undefined {
  return pod.metadata?.ownerReferences?.find((o) => o.controller)?.uid;
}

/** How many pods with the same controller (or, without one, the same labels in the namespace) each node has. */
export function siblingCounts(pod: V1Pod, infos: NodeInfo[]): number[] {
  const owner = controllerUid(pod);
  const ns = pod.metadata?.namespace;
  const labels = JSON.stringify(Object.entries(pod.metadata?.labels ?? {}).sort());
  const same = (p: V1Pod): boolean => {
    if (p.metadata?.namespace !== ns || p.metadata?.uid === pod.metadata?.uid) return false;
    if (owner) return controllerUid(p) === owner;
    return labels !== '[]' && JSON.stringify(Object.entries(p.metadata?.labels ?? {}).sort()) === labels;
  };
  return infos.map((info) => info.pods.filter(same).length);
}

/** Spreading: nodes with fewer siblings score higher; all equal → all 100. */
export function spreadScores(counts: number[]): number[] {
  const max = Math.max(0, ...counts);
  const min = Math.min(...counts);
  if (max === min) return counts.map(() => MAX_NODE_SCORE);
  return counts.map((c) => Math.floor(((max - c) * MAX_NODE_SCORE) / (max - min)));
}

export const WEIGHTS = { leastAllocated: 1, spread: 2 } as const;

/** Total weighted score per feasible node (same order as infos). */
export function scoreNodes(pod: V1Pod, infos: NodeInfo[]): number[] {
  const spread = spreadScores(siblingCounts(pod, infos));
  return infos.map((info, i) => WEIGHTS.leastAllocated * leastAllocatedScore(pod, info) + WEIGHTS.spread * spread[i]!);
}

/** Index of the best score; among equals, one chosen by random() in [0,1). */
export function selectHost(scores: number[], random: () => number): number {
  if (scores.length === 0) return -1;
  const best = Math.max(...scores);
  const ties = scores.flatMap((s, i) => (s === best ? [i] : []));
  return ties[Math.min(ties.length - 1, Math.floor(random() * ties.length))]!;
}
