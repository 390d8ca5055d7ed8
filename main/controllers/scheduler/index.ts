// `startScheduler(ctx)`: the default-scheduler. It watches the pods that hold
// or may hold node resources (status.phase not Succeeded/Failed) and the
// nodes; pods without spec.nodeName for this scheduler go through a work
// queue, one decision at a time (kube schedules one pod per cycle, so two
// decisions never count the same free cpu twice), then bind through
// pods/binding in the background while the next decision counts the pod as
// assumed on its node. A pod that fits nowhere gets FailedScheduling and a
// PodScheduled=False condition, and is retried when nodes change, when a pod
// goes away, and at the latest after a minute.

import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { ControllerContext } from '../../client/kube/context';
import { objectKey, type KubeObject } from '../../client/kube/informer';
import { isConflict, isNotFound, ApiError } from '../../client/kube/rest';
import { objectPath, RESOURCES } from '../../client/kube/resources';
import { RateLimitingQueue, runWorkers } from '../../client/kube/workqueue';
import { rfc3339 } from '../kubelet/podStatus';
import { schedulePod } from './schedule';

export const SCHEDULER_NAME = 'default-scheduler';
/** How long an unschedulable pod waits at most before another try (kube: podMaxInUnschedulablePodsDuration, 5 min). */
export const UNSCHEDULABLE_RETRY_MS = 60_000;

const asPod = (o: KubeObject): V1Pod => o as unknown as V1Pod;

export function wantsScheduling(pod: V1Pod): boolean {
  return !pod.spec?.nodeName && !pod.metadata?.deletionTimestamp && (pod.spec?.schedulerName ?? SCHEDULER_NAME) === SCHEDULER_NAME && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';
}

export async function startScheduler(ctx: ControllerContext, opts: { random?: () => number } = {}): Promise<void> {
  const random = opts.random ?? Math.random;
  const pods = ctx.informers.informer(RESOURCES.pods, { fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' });
  const nodes = ctx.informers.informer(RESOURCES.nodes);
  const recorder = ctx.recorder(SCHEDULER_NAME);
  const queue = new RateLimitingQueue<string>({ clock: ctx.clock, name: 'scheduler' });
  /** Pods bound by us whose binding the watch has not shown yet: key → node. */
  const assumed = new Map<string, string>();
  const unschedulable = new Set<string>();
  const retryUnschedulable = (): void => {
    for (const k of unschedulable) queue.add(k);
    unschedulable.clear();
  };

  pods.addEventHandler({
    add: (p) => {
      if (wantsScheduling(asPod(p))) queue.add(objectKey(p));
    },
    update: (_o, p) => {
      const pod = asPod(p);
      if (pod.spec?.nodeName) assumed.delete(objectKey(p));
      if (wantsScheduling(pod) && !unschedulable.has(objectKey(p))) queue.add(objectKey(p));
      // A pod finishing or being deleted frees its node's resources.
      if (pod.spec?.nodeName && pod.metadata?.deletionTimestamp) retryUnschedulable();
    },
    delete: (p) => {
      assumed.delete(objectKey(p));
      unschedulable.delete(objectKey(p));
      if (asPod(p).spec?.nodeName) retryUnschedulable();
    },
  });
  nodes.addEventHandler({ add: retryUnschedulable, update: retryUnschedulable });
  ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
  if (!(await ctx.informers.waitForCacheSync(ctx.signal))) return;

  const sync = async (key: string): Promise<void> => {
    const obj = pods.get(key);
    if (!obj) return;
    const pod = asPod(obj);
    if (!wantsScheduling(pod) || assumed.has(key)) return;
    const bound = pods.list().map(asPod).map((p) => {
      const node = assumed.get(objectKey(p as KubeObject));
      return node && !p.spec?.nodeName ? { ...p, spec: { ...p.spec!, nodeName: node } } : p;
    });
    const result = schedulePod(pod, nodes.list() as unknown as V1Node[], bound, random);
    const ns = pod.metadata!.namespace!;
    const name = pod.metadata!.name!;
    if (!result.ok) {
      unschedulable.add(key);
      recorder.event(obj, 'Warning', 'FailedScheduling', result.message);
      await markUnschedulable(ctx, pod, result.message);
      queue.addAfter(key, UNSCHEDULABLE_RETRY_MS);
      return;
    }
    // Assume, then bind in the background (kube's binding cycle): the next
    // decision already counts this pod on its node, and one slow binding
    // round trip does not hold up every pod behind it.
    assumed.set(key, result.node);
    unschedulable.delete(key);
    void ctx.clients.rest
      .create(objectPath(RESOURCES.pods, ns, name, 'binding'), {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name, namespace: ns, uid: pod.metadata?.uid },
        target: { apiVersion: 'v1', kind: 'Node', name: result.node },
      })
      .then(
        () => recorder.event(obj, 'Normal', 'Scheduled', `Successfully assigned ${ns}/${name} to ${result.node}`),
        (e: unknown) => {
          // Forget the assumption (kube's ForgetPod). Gone, or bound meanwhile (by us before a
          // restart, or by someone else): the watch tells; anything else is tried again.
          if (assumed.get(key) === result.node) assumed.delete(key);
          if (isNotFound(e) || isConflict(e) || (e instanceof ApiError && e.status === 409) || ctx.signal.aborted) return;
          ctx.log(`scheduler: binding ${key} to ${result.node}: ${String(e)}`);
          queue.addRateLimited(key);
        },
      );
  };
  void runWorkers(queue, 1, sync, (key, err) => ctx.log(`scheduler: ${key}: ${String(err)}`));
}

/** PodScheduled=False/Unschedulable with the FailedScheduling text, as the scheduler's updatePod. */
async function markUnschedulable(ctx: ControllerContext, pod: V1Pod, message: string): Promise<void> {
  const cur = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (cur && cur.status === 'False' && cur.reason === 'Unschedulable' && cur.message === message) return;
  const since = cur && cur.status === 'False' && cur.lastTransitionTime ? rfc3339(cur.lastTransitionTime) : rfc3339(ctx.clock.now());
  const condition = { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: since, reason: 'Unschedulable', message };
  try {
    await ctx.clients.rest.patch(objectPath(RESOURCES.pods, pod.metadata!.namespace!, pod.metadata!.name!, 'status'), 'strategic', { status: { conditions: [condition] } });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}
