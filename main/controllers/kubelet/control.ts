// The switch on each simulated node's power and network, for the console and
// tests. In-process: setNodeState(name, state). Across processes: the
// annotation `kubelet.pilothouse.dev/state` on the Node (running | paused |
// stopped), e.g. `kubectl annotate node node-2 kubelet.pilothouse.dev/state=paused`;
// the kubelet reads it from its Node watch (reading is the one thing a
// partitioned node still does here, so it can be told to come back).
//
//   running  heartbeats, status posts, pods started and stopped
//   paused   a network partition: the kubelet writes nothing at all
//   stopped  the kubelet is down: nothing written; on return it re-registers
//            (new bootID) and picks its pods up again

export type NodeState = 'running' | 'paused' | 'stopped';

export const STATE_ANNOTATION = 'kubelet.pilothouse.dev/state';

export function parseNodeState(v: string | undefined): NodeState | undefined {
  return v === 'running' || v === 'paused' || v === 'stopped' ? v : undefined;
}

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
