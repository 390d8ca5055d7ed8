// The scheduler's picture of one node: the Node plus the pods bound to it
// (and pods it has just bound itself, "assumed", before the watch shows them),
// with their summed requests. Rebuilt from the informer caches for every
// scheduling attempt: simple, and cheap at the sizes Pilothouse runs.

import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { nodeAllocatable, podRequest, type Resources } from './podResources';

export interface NodeInfo {
  node: V1Node;
  pods: V1Pod[];
  requested: Resources;
  nonZeroRequested: Resources;
  allocatable: Resources & { pods: number };
}

/** Pods that no longer hold resources on a node. */
export function isTerminal(pod: V1Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

export function buildNodeInfos(nodes: V1Node[], pods: V1Pod[]): NodeInfo[] {
  const byName = new Map<string, NodeInfo>();
  for (const node of nodes) {
    byName.set(node.metadata!.name!, {
      node,
      pods: [],
      requested: { cpu: 0, memory: 0 },
      nonZeroRequested: { cpu: 0, memory: 0 },
      allocatable: nodeAllocatable(node.status?.allocatable),
    });
  }
  for (const pod of pods) {
    const info = pod.spec?.nodeName ? byName.get(pod.spec.nodeName) : undefined;
    if (!info || isTerminal(pod)) continue;
    info.pods.push(pod);
    const r = podRequest(pod);
    const nz = podRequest(pod, true);
    info.requested.cpu += r.cpu;
    info.requested.memory += r.memory;
    info.nonZeroRequested.cpu += nz.cpu;
    info.nonZeroRequested.memory += nz.memory;
  }
  return [...byName.values()];
}
