// A pod's effective requests and limits, as kube's resource helpers compute
// them (component-helpers resource.PodRequests / PodLimits): the containers'
// sum; each init container runs alone, so the pod needs at least the largest
// of them (plus the sidecars — init containers with restartPolicy Always —
// started before it, which also run for the pod's whole life and so add to
// the sum); pod overhead on top (limits: only where a limit is set).
// LimitRanger's Pod-type limits and the quota's pod evaluator use this.

import { addLists, addQuantity, compare, parseList, type Quantity } from './quantity';

export interface ContainerSpec {
  name?: string;
  restartPolicy?: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

export interface PodSpecResources {
  containers?: ContainerSpec[];
  initContainers?: ContainerSpec[];
  overhead?: Record<string, string>;
}

function maxInto(into: Map<string, Quantity>, other: Map<string, Quantity>): void {
  for (const [k, v] of other) {
    const cur = into.get(k);
    if (!cur || compare(v, cur) > 0) into.set(k, v);
  }
}

function aggregate(spec: PodSpecResources, pick: (c: ContainerSpec) => unknown): Map<string, Quantity> {
  let sum = new Map<string, Quantity>();
  for (const c of spec.containers ?? []) sum = addLists(sum, parseList(pick(c)));
  let sidecars = new Map<string, Quantity>();
  const initMax = new Map<string, Quantity>();
  for (const c of spec.initContainers ?? []) {
    const own = parseList(pick(c));
    if (c.restartPolicy === 'Always') {
      sum = addLists(sum, own);
      sidecars = addLists(sidecars, own);
      maxInto(initMax, sidecars);
    } else {
      maxInto(initMax, addLists(own, sidecars));
    }
  }
  maxInto(sum, initMax);
  return sum;
}

export function podRequests(spec: PodSpecResources): Map<string, Quantity> {
  const reqs = aggregate(spec, (c) => c.resources?.requests);
  return spec.overhead ? addLists(reqs, parseList(spec.overhead)) : reqs;
}

export function podLimits(spec: PodSpecResources): Map<string, Quantity> {
  const limits = aggregate(spec, (c) => c.resources?.limits);
  for (const [k, v] of parseList(spec.overhead)) {
    const cur = limits.get(k);
    if (cur) limits.set(k, addQuantity(cur, v));
  }
  return limits;
}
