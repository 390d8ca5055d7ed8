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
