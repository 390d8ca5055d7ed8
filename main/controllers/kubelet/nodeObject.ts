// The Node a simulated kubelet registers, its status heartbeat and its Lease
// in kube-node-lease — shaped like a kubeadm node running kubelet v1.32 on
// containerd (pkg/kubelet/kubelet_node_status.go, nodestatus/setters.go).

import { createHash } from 'node:crypto';
import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import { nodeInternalIp, nodePodCidr } from './podIps';
import { rfc3339 } from './podStatus';

export const KUBELET_VERSION = 'v1.32.0';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
export const NODE_LEASE_DURATION_SECONDS = 40;

export interface NodeCapacity {
  cpu: string;
  memory: string;
  pods: string;
}

export const DEFAULT_CAPACITY: NodeCapacity = { cpu: '4', memory: '8Gi', pods: '110' };

function fakeId(seed: string): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, 32);
}

function uuidOf(seed: string): string {
  const h = fakeId(seed);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** Ready plus the three pressure conditions, all healthy, with heartbeat `now`. */
export function healthyConditions(now: string, old: V1NodeCondition[] = []): Record<string, unknown>[] {
  const want: Array<[string, string, string, string]> = [
    ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
    ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
    ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
    ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
  ];
  const prev = new Map(old.map((c) => [c.type, c]));
  return want.map(([type, status, reason, message]) => {
    const p = prev.get(type);
    const since = p && p.status === status && p.lastTransitionTime ? rfc3339(p.lastTransitionTime) : now;
    return { type, status, lastHeartbeatTime: now, lastTransitionTime: since, reason, message };
  });
}

/** The Node object a kubelet creates on registration (index is 1-based). */
export function registrationNode(name: string, index: number, capacity: NodeCapacity, now: string): V1Node & Record<string, unknown> {
  const cap = { cpu: capacity.cpu, memory: capacity.memory, pods: capacity.pods, 'ephemeral-storage': '100Gi', 'hugepages-2Mi': '0' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        type: 'pilothouse-simulated',
      },
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: { podCIDR: nodePodCidr(index), podCIDRs: [nodePodCidr(index)] },
    status: {
      capacity: cap,
      allocatable: cap,
      conditions: healthyConditions(now) as unknown as V1NodeCondition[],
      addresses: [
        { type: 'InternalIP', address: nodeInternalIp(index) },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: fakeId(`machine:${name}`),
        systemUUID: uuidOf(`system:${name}`),
        bootID: uuidOf(`boot:${name}:${now}`),
        kernelVersion: '6.1.0-pilothouse',
        osImage: 'Pilothouse simulated node',
        containerRuntimeVersion: 'containerd://1.7.24',
        kubeletVersion: KUBELET_VERSION,
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

/** MicroTime: RFC 3339 with microseconds, as Lease.spec.renewTime marshals. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/** The node's Lease (owner: the Node, so it goes when the node is deleted). */
export function nodeLease(name: string, nodeUid: string | undefined, nowMs: number, durationSeconds = NODE_LEASE_DURATION_SECONDS): Record<string, unknown> {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace: NODE_LEASE_NAMESPACE,
      ...(nodeUid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: nodeUid }] } : {}),
    },
    spec: { holderIdentity: name, leaseDurationSeconds: durationSeconds, renewTime: microTime(nowMs) },
  };
}
