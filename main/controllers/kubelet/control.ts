// In-process registry of the simulated nodes' switches (the annotation
// protocol is in main/kube/simulatedNodeState.ts).

import type { NodeState } from '../../kube/simulatedNodeState';

export { STATE_ANNOTATION, parseNodeState, type NodeState } from '../../kube/simulatedNodeState';

export interface NodeSwitch {
  readonly name: string;
  state(): NodeState;
  setState(s: NodeState): void;
}

const registry = new Map<string, NodeSwitch>();

/** Called by each simulated kubelet while it runs; returns the unregister function. */
export function registerNode(sw: NodeSwitch): () => void {
  registry.set(sw.name, sw);
  return () => {
    if (registry.get(sw.name) === sw) registry.delete(sw.name);
  };
}

/** The simulated nodes in this process and their states. */
export function simulatedNodes(): Array<{ name: string; state: NodeState }> {
  return [...registry.values()].map((s) => ({ name: s.name, state: s.state() })).sort((a, b) => a.name.localeCompare(b.name));
}

/** Pauses, stops or resumes a simulated node in this process; false if there is no such node. */
export function setNodeState(name: string, state: NodeState): boolean {
  const sw = registry.get(name);
  if (!sw) return false;
  sw.setState(state);
  return true;
}
