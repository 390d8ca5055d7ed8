// The nodes' turn in an upgrade: the simulated kubelets run inside the
// controllers process, so they run the target once the controllers do; what
// is left is each node's own turn, one at a time, as `kubectl drain` and
// `kubectl uncordon` give it on a real cluster: cordoned (no new Pods), seen
// Ready with a heartbeat from the kubelet now running (its Lease in
// kube-node-lease renewed since that kubelet started), uncordoned. Pods are evicted only
// where the API server serves the eviction subresource; without it the
// Pods stay where they are and the report says so.

import type { RestClient } from '../client/kube/restClient';

interface NodeView {
  metadata: { name: string };
  spec?: { unschedulable?: boolean };
  status?: { conditions?: { type: string; status: string; lastHeartbeatTime?: string }[] };
}

const POLL_MS = 200;

interface LeaseView {
  spec?: { renewTime?: string };
}

async function readyAfter(rest: RestClient, name: string, sinceMs: number): Promise<boolean> {
  const [node, lease] = await Promise.all([
    rest.request<NodeView>('GET', `/api/v1/nodes/${encodeURIComponent(name)}`, { signal: AbortSignal.timeout(2_000) }),
    rest.request<LeaseView>('GET', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${encodeURIComponent(name)}`, { signal: AbortSignal.timeout(2_000) }),
  ]).catch(() => [undefined, undefined] as const);
  const ready = node?.status?.conditions?.find((c) => c.type === 'Ready');
  // renewTime has microseconds; the clock is the same machine's.
  return ready?.status === 'True' && Date.parse(lease?.spec?.renewTime ?? '') >= sinceMs - 1;
}

async function servesEviction(rest: RestClient): Promise<boolean> {
  const core = await rest.request<{ resources: { name: string }[] }>('GET', '/api/v1', { signal: AbortSignal.timeout(5_000) });
  return core.resources.some((r) => r.name === 'pods/eviction');
}

/** kubeletSinceMs: when the kubelets now running started (the controllers' replacement). */
export async function cycleNodes(rest: RestClient, kubeletSinceMs: number, timeoutMs: number, log: (line: string) => void, signal?: AbortSignal): Promise<{ ok: boolean; lines: string[] }> {
  const lines: string[] = [];
  const say = (l: string) => {
    lines.push(l);
    log(l);
  };
  const nodes = (await rest.request<{ items: NodeView[] }>('GET', '/api/v1/nodes', { signal: AbortSignal.timeout(5_000) })).items;
  if (!(await servesEviction(rest))) say('the API server serves no pods/eviction: nodes are cordoned and uncordoned, their Pods stay in place');
  for (const node of nodes) {
    signal?.throwIfAborted();
    const name = node.metadata.name;
    const path = `/api/v1/nodes/${encodeURIComponent(name)}`;
    const wasCordoned = node.spec?.unschedulable === true;
    const since = Date.now();
    if (!wasCordoned) await rest.patch(path, 'merge', { spec: { unschedulable: true } });
    say(`node ${name}: cordoned${wasCordoned ? ' (it already was)' : ''} (kubectl cordon ${name})`);
    let ok = false;
    while (!ok && Date.now() < since + timeoutMs) {
      signal?.throwIfAborted();
      ok = await readyAfter(rest, name, kubeletSinceMs);
      if (!ok) await new Promise((r) => setTimeout(r, POLL_MS));
    }
    if (!wasCordoned) await rest.patch(path, 'merge', { spec: { unschedulable: null } });
    if (!ok) {
      say(`node ${name}: not Ready with a fresh heartbeat within ${timeoutMs} ms; uncordoned, stopping here`);
      return { ok: false, lines };
    }
    say(`node ${name}: Ready under the new kubelet; ${wasCordoned ? 'left cordoned as it was' : `uncordoned (kubectl uncordon ${name})`}`);
  }
  return { ok: true, lines };
}
