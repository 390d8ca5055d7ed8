// The overview's nodes: a node informer and a pod informer on the API server
// (the controllers' own client library, as the kubeconfig context's user: the
// embedded plane's admin, or the context an attached cluster chose) summarised
// into NodeSummary rows — readiness, pods bound, the simulated kubelet's
// paused state, taints. Changes are coalesced; onChange fires at most every
// COALESCE_MS, since a busy cluster changes pods many times a second.

import type { NodeSummary } from '../../preload/contract';
import { clientsFromKubeConfig, RESOURCES, SharedInformerFactory, INDEX_NODE_NAME, type KubeClients, type KubeObject } from '../client/kube';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeError } from './kubeErrors';
import { parseNodeState, STATE_ANNOTATION } from '../kube/simulatedNodeState';

const COALESCE_MS = 250;

interface NodeObject extends KubeObject {
  metadata: { name?: string; annotations?: Record<string, string> };
  spec?: { unschedulable?: boolean; taints?: { key: string; value?: string; effect: string }[] };
  status?: { capacity?: Record<string, string>; conditions?: { type: string; status: string; reason?: string; lastHeartbeatTime?: string }[] };
}

interface PodObject extends KubeObject {
  spec?: { nodeName?: string };
  status?: { phase?: string };
}

export function summarizeNode(node: NodeObject, podsOnNode: PodObject[]): NodeSummary {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  const status = ready?.status === 'True' || ready?.status === 'False' ? ready.status : 'Unknown';
  const out: NodeSummary = {
    name: node.metadata.name!,
    ready: status,
    pods: podsOnNode.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed').length,
    kubelet: parseNodeState(node.metadata.annotations?.[STATE_ANNOTATION]) ?? 'running',
    unschedulable: node.spec?.unschedulable === true,
    taints: (node.spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`),
  };
  if (ready?.reason) out.reason = ready.reason;
  if (ready?.lastHeartbeatTime) out.lastHeartbeat = ready.lastHeartbeatTime;
  if (node.status?.capacity?.cpu) out.cpu = node.status.capacity.cpu;
  if (node.status?.capacity?.memory) out.memory = node.status.capacity.memory;
  return out;
}

export class NodesFeed {
  private readonly abort = new AbortController();
  private clients: KubeClients | undefined;
  private factory: SharedInformerFactory | undefined;
  private timer: NodeJS.Timeout | undefined;
  private snapshot: NodeSummary[] | undefined;

  /** kube: the loaded kubeconfig with the chosen context current (its user is who lists the nodes). */
  constructor(
    private readonly kube: KubeConfig,
    private readonly onChange: () => void,
    private readonly onError: (message: string) => void = () => {},
  ) {}

  async start(): Promise<void> {
    this.clients = await clientsFromKubeConfig(this.kube, 'pilothouse-console');
    // a failure said once until it changes: a forbidden list is retried every 30 s and would fill the log
    const last = new Map<string, string>();
    const onError = (resource: string, err: Error): void => {
      const m = kubeError(err, { server: this.clients?.rest.server.origin });
      if (last.get(resource) === m) return;
      last.set(resource, m);
      this.onError(`${resource}: ${m}`);
    };
    const factory = new SharedInformerFactory(this.clients.rest, { onError });
    this.factory = factory;
    const nodes = factory.informer<NodeObject>(RESOURCES.nodes);
    const pods = factory.informer<PodObject>(RESOURCES.pods);
    const changed = (): void => this.schedule();
    for (const inf of [nodes, pods] as const) inf.addEventHandler({ add: changed, update: changed, delete: changed });
    factory.start(this.abort.signal);
    const compute = (): NodeSummary[] =>
      nodes
        .list()
        .map((n) => summarizeNode(n, pods.byIndex(INDEX_NODE_NAME, n.metadata.name!)))
        .sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
    this.compute = compute;
    if (await factory.waitForCacheSync(this.abort.signal)) this.flush();
  }

  private compute: () => NodeSummary[] = () => [];

  /** The nodes as last summarised; undefined until both informers have synced. */
  nodes(): NodeSummary[] | undefined {
    return this.snapshot;
  }

  private schedule(): void {
    if (this.timer || this.abort.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, COALESCE_MS);
  }

  private flush(): void {
    if (this.abort.signal.aborted) return;
    this.snapshot = this.compute();
    this.onChange();
  }

  async dispose(): Promise<void> {
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.factory?.stopped();
    this.clients?.rest.close();
  }
}
