// `startNodeLifecycleController(ctx)`: every --node-monitor-period it looks
// at each node's heartbeats (its Lease in kube-node-lease and its Ready
// condition), marks silent nodes Unknown, keeps the not-ready/unreachable
// taints in step with Ready, marks the pods of a lost node not Ready, and
// evicts (deletes) pods from NoExecute-tainted nodes as the taint-eviction
// controller does. It runs inside the controller manager's leadership.

import type { V1Node, V1Pod, V1Taint } from '@kubernetes/client-node';
import type { ControllerContext } from '../../client/kube/context';
import { INDEX_NODE_NAME, type KubeObject } from '../../client/kube/informer';
import { isConflict, isNotFound } from '../../client/kube/rest';
import { objectPath, RESOURCES } from '../../client/kube/resources';
import { sleep } from '../../client/kube/clock';
import { kubeTime } from '../../client/kube/eventRecorder';
import { NODE_LEASE_NAMESPACE } from '../kubelet/nodeObject';
import { conditionsAfterTimeout, desiredTaints, evictionDue, observeHeartbeat, type HeartbeatSeen } from './decisions';

export async function startNodeLifecycleController(ctx: ControllerContext): Promise<void> {
  const nodes = ctx.informers.informer(RESOURCES.nodes);
  const leases = ctx.informers.informer(RESOURCES.leases, { namespace: NODE_LEASE_NAMESPACE });
  const pods = ctx.informers.informer(RESOURCES.pods);
  const nodeEvents = ctx.recorder('node-controller');
  const evictionEvents = ctx.recorder('taint-eviction-controller');
  if (!(await ctx.informers.waitForCacheSync(ctx.signal))) return;

  const seen = new Map<string, HeartbeatSeen>();
  /** When we first saw each NoExecute taint without a timeAdded: `${node}/${key}`. */
  const taintSeen = new Map<string, number>();
  const evicted = new Set<string>();
  const notReadyMarked = new Set<string>();

  const patchNode = (name: string, sub: string | undefined, body: unknown): Promise<unknown> =>
    ctx.clients.rest.patch(objectPath(RESOURCES.nodes, undefined, name, sub), 'strategic', body);

  async function monitorNode(node: V1Node, nowMs: number): Promise<void> {
    const name = node.metadata!.name!;
    const lease = leases.getByName(NODE_LEASE_NAMESPACE, name) as { spec?: { renewTime?: unknown } } | undefined;
    const s = observeHeartbeat(seen.get(name), node, lease?.spec?.renewTime, nowMs);
    seen.set(name, s);
    const now = kubeTime(nowMs);
    const conds = conditionsAfterTimeout(node, s, nowMs, ctx.options.nodeMonitorGracePeriodMs, now);
    if (conds) {
      await patchNode(name, 'status', { status: { conditions: conds } });
      nodeEvents.event({ apiVersion: 'v1', kind: 'Node', name, uid: name }, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
      ctx.log(`node-lifecycle: ${name} Ready=Unknown (no heartbeat for ${Math.round((nowMs - s.probeMs) / 1000)}s)`);
      node = { ...node, status: { ...node.status, conditions: conds as never } };
    }
    const taints = desiredTaints(node, now);
    if (taints) {
      // A strategic patch replaces the taint list (it has no merge key), which is what we want.
      await patchNode(name, undefined, { spec: { taints } });
      node = { ...node, spec: { ...node.spec, taints } };
    }
    await evictPods(node, nowMs);
    // Last: the taints and evictions above must not wait behind one status write per pod.
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
    if (ready !== 'True' && !notReadyMarked.has(name)) {
      notReadyMarked.add(name);
      await markPodsNotReady(name, now);
    }
    if (ready === 'True') notReadyMarked.delete(name);
  }

  /** kube's MarkPodsNotReady: Ready=False on every pod of a node that stopped reporting. */
  async function markPodsNotReady(nodeName: string, now: string): Promise<void> {
    for (const o of pods.byIndex(INDEX_NODE_NAME, nodeName)) {
      const pod = o as unknown as V1Pod;
      const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
      if (!ready || ready.status === 'False') continue;
      try {
        await ctx.clients.rest.patch(objectPath(RESOURCES.pods, pod.metadata!.namespace!, pod.metadata!.name!, 'status'), 'strategic', {
          status: { conditions: [{ type: 'Ready', status: 'False', lastProbeTime: null, lastTransitionTime: now }] },
        });
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) throw e;
      }
      nodeEvents.event(o, 'Warning', 'NodeNotReady', 'Node is not ready');
    }
  }

  async function evictPods(node: V1Node, nowMs: number): Promise<void> {
    const name = node.metadata!.name!;
    const taints = node.spec?.taints ?? [];
    const addedAt = (t: V1Taint): number => {
      if (t.timeAdded) return new Date(t.timeAdded).getTime();
      const k = `${name}/${t.key}`;
      if (!taintSeen.has(k)) taintSeen.set(k, nowMs);
      return taintSeen.get(k)!;
    };
    for (const o of pods.byIndex(INDEX_NODE_NAME, name)) {
      const pod = o as unknown as V1Pod;
      const uid = pod.metadata?.uid ?? '';
      if (pod.metadata?.deletionTimestamp || evicted.has(uid)) continue;
      const due = evictionDue(pod, taints, addedAt, ctx.options.podEvictionTimeoutMs);
      if (due === undefined || (due !== 'now' && due > nowMs)) continue;
      evicted.add(uid);
      evictionEvents.event(o, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${pod.metadata!.namespace}/${pod.metadata!.name}`);
      try {
        await ctx.clients.rest.delete(objectPath(RESOURCES.pods, pod.metadata!.namespace!, pod.metadata!.name!), { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid } });
        ctx.log(`node-lifecycle: evicted ${pod.metadata!.namespace}/${pod.metadata!.name} from ${name}`);
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) {
          evicted.delete(uid);
          throw e;
        }
      }
    }
    if (!taints.some((t) => t.effect === 'NoExecute')) for (const k of [...taintSeen.keys()]) if (k.startsWith(`${name}/`)) taintSeen.delete(k);
  }

  const pass = async (): Promise<void> => {
    const nowMs = ctx.clock.now();
    const live = new Set<string>();
    for (const o of nodes.list()) {
      live.add(o.metadata?.name ?? '');
      try {
        await monitorNode(o as KubeObject as unknown as V1Node, nowMs);
      } catch (e) {
        ctx.log(`node-lifecycle: ${o.metadata?.name}: ${String(e)}`);
      }
    }
    for (const n of [...seen.keys()]) if (!live.has(n)) seen.delete(n);
    for (const uid of [...evicted]) if (!pods.list().some((p) => p.metadata?.uid === uid)) evicted.delete(uid);
  };

  void (async () => {
    for (let i = 0; !ctx.signal.aborted; i++) {
      await pass();
      await sleep(ctx.clock, ctx.options.nodeMonitorPeriodMs, ctx.signal);
    }
  })();
}
