// The pod statuses a kubelet reports while it starts a pod, as pure builders:
// "starting" (sandbox up, containers being created: Pending with
// ContainerCreating) and "running" (every container started and ready). The
// condition order and texts are the kubelet's (pkg/kubelet/status,
// generate.go). A condition keeps its lastTransitionTime while its status
// does not change.

import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { containerId, imageId, normalizeImage } from './images';

export interface NodeAddressing {
  hostIP: string;
  podIP: string;
}

/** RFC 3339 with whole seconds, as metav1.Time marshals. */
export function rfc3339(t: Date | string | number): string {
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

type Cond = { type: string; status: string; reason?: string; message?: string };

function conditions(pod: V1Pod, want: Cond[], now: string): Record<string, unknown>[] {
  const old = new Map<string, V1PodCondition>((pod.status?.conditions ?? []).map((c) => [c.type, c]));
  return want.map((c) => {
    const prev = old.get(c.type);
    const since = prev && prev.status === c.status && prev.lastTransitionTime ? rfc3339(prev.lastTransitionTime) : now;
    const out: Record<string, unknown> = { type: c.type, status: c.status, lastProbeTime: null, lastTransitionTime: since };
    if (c.reason) out['reason'] = c.reason;
    if (c.message) out['message'] = c.message;
    return out;
  });
}

function containerNames(pod: V1Pod): string[] {
  return (pod.spec?.containers ?? []).map((c) => c.name);
}

function initStatuses(pod: V1Pod, now: string): Record<string, unknown>[] | undefined {
  const inits = pod.spec?.initContainers ?? [];
  if (inits.length === 0) return undefined;
  const uid = pod.metadata?.uid ?? '';
  return inits.map((c) => ({
    name: c.name,
    image: normalizeImage(c.image ?? ''),
    imageID: imageId(c.image ?? ''),
    containerID: containerId(uid, c.name),
    ready: true,
    restartCount: 0,
    started: false,
    state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now, containerID: containerId(uid, c.name) } },
    lastState: {},
  }));
}

function base(pod: V1Pod, addr: NodeAddressing, now: string): Record<string, unknown> {
  const startTime = pod.status?.startTime ? rfc3339(pod.status.startTime) : now;
  return {
    hostIP: addr.hostIP,
    hostIPs: [{ ip: addr.hostIP }],
    podIP: addr.podIP,
    podIPs: [{ ip: addr.podIP }],
    startTime,
  };
}

/** Sandbox ready, init containers done, app containers being created. */
export function startingStatus(pod: V1Pod, addr: NodeAddressing, now: string): Record<string, unknown> {
  const names = containerNames(pod);
  const unready = `containers with unready status: [${names.join(' ')}]`;
  const status: Record<string, unknown> = {
    phase: 'Pending',
    ...base(pod, addr, now),
    conditions: conditions(
      pod,
      [
        { type: 'PodReadyToStartContainers', status: 'True' },
        { type: 'Initialized', status: 'True' },
        { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: unready },
        { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: unready },
        { type: 'PodScheduled', status: 'True' },
      ],
      now,
    ),
    containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
      name: c.name,
      image: c.image,
      imageID: '',
      ready: false,
      restartCount: 0,
      started: false,
      state: { waiting: { reason: 'ContainerCreating' } },
      lastState: {},
    })),
  };
  const inits = initStatuses(pod, now);
  if (inits) status['initContainerStatuses'] = inits;
  return status;
}

/** Every container running and (no probes are simulated) ready. */
export function runningStatus(pod: V1Pod, addr: NodeAddressing, now: string): Record<string, unknown> {
  const uid = pod.metadata?.uid ?? '';
  const status: Record<string, unknown> = {
    phase: 'Running',
    ...base(pod, addr, now),
    conditions: conditions(
      pod,
      [
        { type: 'PodReadyToStartContainers', status: 'True' },
        { type: 'Initialized', status: 'True' },
        { type: 'Ready', status: 'True' },
        { type: 'ContainersReady', status: 'True' },
        { type: 'PodScheduled', status: 'True' },
      ],
      now,
    ),
    containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
      name: c.name,
      image: normalizeImage(c.image ?? ''),
      imageID: imageId(c.image ?? ''),
      containerID: containerId(uid, c.name),
      ready: true,
      restartCount: 0,
      started: true,
      state: { running: { startedAt: now } },
      lastState: {},
    })),
  };
  const inits = initStatuses(pod, now);
  if (inits) status['initContainerStatuses'] = inits;
  return status;
}

/** True when the pod already reports Running with every container ready (nothing left to do). */
export function isRunningAndReady(pod: V1Pod): boolean {
  if (pod.status?.phase !== 'Running') return false;
  const names = containerNames(pod);
  const statuses = pod.status.containerStatuses ?? [];
  return names.every((n) => statuses.some((s) => s.name === n && s.ready && s.state?.running));
}
