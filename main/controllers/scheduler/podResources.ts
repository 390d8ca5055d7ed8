// What a pod asks of a node, computed as the scheduler's NodeResourcesFit
// does: the sum of the app containers' requests, raised to any larger single
// init container (init containers run one at a time, before the app), plus
// the pod overhead. Scoring uses the "non-zero" variant, where a container
// without a request counts as 100m cpu and 200Mi memory, so that many
// request-less pods do not all land on one node.

import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { milliValue, value } from './quantity';

export interface Resources {
  /** Millicores. */
  cpu: number;
  /** Bytes. */
  memory: number;
}

export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

function containerRequest(c: V1Container, nonZero: boolean): Resources {
  const req = c.resources?.requests ?? {};
  const cpu = req['cpu'] !== undefined ? milliValue(req['cpu']) : nonZero ? DEFAULT_MILLI_CPU_REQUEST : 0;
  const memory = req['memory'] !== undefined ? value(req['memory']) : nonZero ? DEFAULT_MEMORY_REQUEST : 0;
  return { cpu, memory };
}

/** The pod's effective request (nonZero: with the scoring defaults). */
export function podRequest(pod: V1Pod, nonZero = false): Resources {
  const sum: Resources = { cpu: 0, memory: 0 };
  for (const c of pod.spec?.containers ?? []) {
    const r = containerRequest(c, nonZero);
    sum.cpu += r.cpu;
    sum.memory += r.memory;
  }
  for (const c of pod.spec?.initContainers ?? []) {
    const r = containerRequest(c, nonZero);
    sum.cpu = Math.max(sum.cpu, r.cpu);
    sum.memory = Math.max(sum.memory, r.memory);
  }
  const overhead = pod.spec?.overhead ?? {};
  if (overhead['cpu'] !== undefined) sum.cpu += milliValue(overhead['cpu']);
  if (overhead['memory'] !== undefined) sum.memory += value(overhead['memory']);
  return sum;
}

/** A node's allocatable cpu (millicores), memory (bytes) and pod count. */
export function nodeAllocatable(alloc: Record<string, string> | undefined): Resources & { pods: number } {
  const a = alloc ?? {};
  return {
    cpu: a['cpu'] !== undefined ? milliValue(a['cpu']) : 0,
    memory: a['memory'] !== undefined ? value(a['memory']) : 0,
    pods: a['pods'] !== undefined ? value(a['pods']) : 0,
  };
}
