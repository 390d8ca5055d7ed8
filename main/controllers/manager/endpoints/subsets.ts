// The Endpoints a Service's selected pods make (kube's endpoints_controller.go
// syncService + RepackSubsets): each pod with an IP contributes an address
// per service port it can serve (targetPort by number, or by a named
// container port of the right protocol); ready pods go to addresses, others
// to notReadyAddresses (unless publishNotReadyAddresses); addresses with the
// same set of ports share a subset.

import { isPodReady, isTerminal } from '../common';
import type { Pod } from '../types';

export interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  targetPort?: number | string;
  appProtocol?: string;
}

export interface Service {
  metadata: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: { selector?: Record<string, string>; ports?: ServicePort[]; clusterIP?: string; publishNotReadyAddresses?: boolean };
}

export interface EndpointAddress {
  ip: string;
  nodeName?: string;
  targetRef: { kind: 'Pod'; namespace: string; name: string; uid: string };
}
export interface EndpointPort {
  name?: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}
export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

/** podutil.FindPort: the container port a service port targets. */
export function findPort(pod: Pod, sp: ServicePort): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  const proto = sp.protocol ?? 'TCP';
  for (const c of pod.spec?.containers ?? []) for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? 'TCP') === proto) return p.containerPort;
  return undefined;
}

export function endpointSubsets(svc: Service, pods: Pod[]): EndpointSubset[] {
  const publishNotReady = svc.spec?.publishNotReadyAddresses === true;
  const groups = new Map<string, EndpointSubset>();
  for (const pod of pods) {
    const ip = pod.status?.podIP;
    if (!ip || isTerminal(pod)) continue;
    if (pod.metadata.deletionTimestamp && !publishNotReady) continue;
    const ports: EndpointPort[] = [];
    for (const sp of svc.spec?.ports ?? []) {
      const port = findPort(pod, sp);
      if (port === undefined) continue; // kube logs and skips this port for this pod
      ports.push({ ...(sp.name ? { name: sp.name } : {}), port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) });
    }
    // A service without ports still lists its pods (headless with no ports).
    if ((svc.spec?.ports ?? []).length > 0 && ports.length === 0) continue;
    ports.sort((a, b) => (a.name ?? '').localeCompare(b.name ?? '') || a.port - b.port || a.protocol.localeCompare(b.protocol));
    const sig = JSON.stringify(ports);
    let g = groups.get(sig);
    if (!g) groups.set(sig, (g = { ports }));
    const addr: EndpointAddress = {
      ip,
      ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
      targetRef: { kind: 'Pod', namespace: pod.metadata.namespace!, name: pod.metadata.name!, uid: pod.metadata.uid! },
    };
    if (publishNotReady || isPodReady(pod)) (g.addresses ??= []).push(addr);
    else (g.notReadyAddresses ??= []).push(addr);
  }
  const byIp = (a: EndpointAddress, b: EndpointAddress): number => a.ip.localeCompare(b.ip) || a.targetRef.uid.localeCompare(b.targetRef.uid);
  const out = [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, g]) => g);
  for (const g of out) {
    g.addresses?.sort(byIp);
    g.notReadyAddresses?.sort(byIp);
    if (g.ports?.length === 0) delete g.ports;
  }
  return out;
}
