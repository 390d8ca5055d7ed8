// The cluster in one line: process states and member probes combined into a
// ClusterOverview. Pure, so every combination is a table row in the tests.
//
// health:
//   starting  the first start has not finished and nothing is healthy yet;
//   healthy   every member healthy, one leader (and the API server ready, when there is one);
//   degraded  a quorum of members healthy with a leader, but not all (or the API server
//             down, or an alarm raised: NOSPACE makes the cluster refuse writes);
//   down      no quorum of healthy members / no leader.

import type { ClusterOverview, ComponentStatus, MemberStatus, NodeSummary } from '../../preload/contract';

export interface OverviewInput {
  mode: ClusterOverview['mode'];
  components: ComponentStatus[];
  members: MemberStatus[];
  /** The first start is still running. */
  starting: boolean;
  clusterId?: string;
  /** undefined: no API server in this control plane. */
  apiserverReady?: boolean;
  /** undefined: nodes not known (no API server, or not listed yet). */
  nodes?: NodeSummary[];
  connection?: ClusterOverview['connection'];
}

export function buildOverview(i: OverviewInput): ClusterOverview {
  const total = i.members.length;
  const healthy = i.members.filter((m) => m.healthy).length;
  const leader = i.members.find((m) => m.isLeader && m.healthy) ?? i.members.find((m) => m.isLeader);
  const quorum = Math.floor(total / 2) + 1;
  const alarms = i.members.flatMap((m) => m.alarms.map((a) => `alarm ${a} on ${m.name}`));

  let health: ClusterOverview['health'];
  if (healthy >= quorum && leader) {
    health = healthy === total && i.apiserverReady !== false && alarms.length === 0 ? 'healthy' : 'degraded';
  } else health = i.starting ? 'starting' : 'down';

  const parts: string[] = [];
  parts.push(`${health}: ${healthy}/${total} members`);
  parts.push(leader ? `leader ${leader.name} (term ${leader.raftTerm})` : 'no leader');
  if (i.apiserverReady !== undefined) parts.push(i.apiserverReady ? 'API server ready' : 'API server not ready');
  if (i.nodes && i.nodes.length > 0) parts.push(`${i.nodes.filter((n) => n.ready === 'True').length}/${i.nodes.length} nodes Ready`);
  parts.push(...alarms);
  const down = i.components.filter((c) => c.state === 'crashed' || c.state === 'stopped' || c.state === 'paused');
  if (down.length > 0) parts.push(down.map((c) => `${c.id} ${c.state}`).join(', '));

  const out: ClusterOverview = {
    mode: i.mode,
    components: i.components,
    members: i.members,
    summary: parts.join(', '),
    health,
  };
  if (leader) out.leader = leader.name;
  if (i.clusterId) out.clusterId = i.clusterId;
  if (i.nodes) out.nodes = i.nodes;
  if (i.connection) out.connection = i.connection;
  return out;
}

/** What changes the overview for the renderer (probe times and latencies alone do not). */
export function overviewFingerprint(o: ClusterOverview): string {
  // Heartbeat times move every few seconds on every node; they alone are no reason to redraw.
  return JSON.stringify({
    ...o,
    members: o.members.map(({ checkedAt: _c, probeLatencyMs: _p, ...rest }) => rest),
    nodes: o.nodes?.map(({ lastHeartbeat: _h, ...rest }) => rest),
  });
}
