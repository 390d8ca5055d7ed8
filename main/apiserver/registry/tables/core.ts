// Columns of the core/v1 and coordination printers (kube's printService,
// printNamespace, printNode, printEndpoints, printConfigMap, printSecret,
// printServiceAccount, printEvent, printLease) with their cell rendering.

import type { KObject } from '../../../kube/object';
import { setString } from '../../api/labelSelector';
import type { TableConvertor } from '../rest/resourceDef';
import { type Rec, arr, isRec, num, recOpt, str } from '../common/obj';
import { ageColumn, col, nameColumn } from './columns';
import { translateTimestampSince } from './duration';

const spec = (o: KObject): Rec => (isRec(o.spec) ? o.spec : {}) as Rec;
const status = (o: KObject): Rec => (isRec(o.status) ? o.status : {}) as Rec;
const age = (o: KObject, now: Date) => translateTimestampSince(o.metadata.creationTimestamp, now);

/** labels.FormatLabels. */
const formatLabels = (m: unknown) => setString(isRec(m) ? (m as Record<string, string>) : undefined) || '<none>';

function portString(ports: Rec[]): string {
  return ports.map((p) => ((num(p, 'nodePort') ?? 0) > 0 ? `${num(p, 'port')}:${num(p, 'nodePort')}/${str(p, 'protocol')}` : `${num(p, 'port')}/${str(p, 'protocol')}`)).join(',');
}

function loadBalancerIPs(svc: KObject, wide: boolean): string {
  const ingress = arr(recOpt(status(svc), 'loadBalancer'), 'ingress');
  const s = ingress.map((i) => str(i, 'ip') || str(i, 'hostname')).filter(Boolean).join(',');
  return !wide && s.length > 16 ? `${s.slice(0, 13)}...` : s;
}

function serviceExternalIP(svc: KObject): string {
  const externalIPs = (spec(svc).externalIPs as string[] | undefined) ?? [];
  switch (str(spec(svc), 'type')) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerIPs(svc, true);
      if (externalIPs.length) return [...(lb ? lb.split(',') : []), ...externalIPs].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return str(spec(svc), 'externalName');
  }
  return '<unknown>';
}

export const serviceTable: TableConvertor = {
  columns: [
    nameColumn,
    col('Type', 'string', 'type determines how the Service is exposed. Defaults to ClusterIP.'),
    col('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
    col('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
    col('Port(s)', 'string', 'The list of ports that are exposed by this service.'),
    ageColumn,
    col('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector.', 1),
  ],
  cells(svc, now) {
    const ips = (spec(svc).clusterIPs as string[] | undefined) ?? [];
    return [svc.metadata.name, str(spec(svc), 'type'), ips[0] ?? '<none>', serviceExternalIP(svc), portString(arr(spec(svc), 'ports')) || '<none>', age(svc, now), formatLabels(spec(svc).selector)];
  },
};

export const namespaceTable: TableConvertor = {
  columns: [nameColumn, col('Status', 'string', 'The status of the namespace'), ageColumn],
  cells: (ns, now) => [ns.metadata.name, str(status(ns), 'phase'), age(ns, now)],
};

function nodeRoles(node: KObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return [...roles].sort().join(',') || '<none>';
}

const nodeAddress = (node: KObject, type: string) => arr(status(node), 'addresses').find((a) => str(a, 'type') === type)?.address ?? '<none>';

export const nodeTable: TableConvertor = {
  columns: [
    nameColumn,
    col('Status', 'string', 'The status of the node'),
    col('Roles', 'string', 'The roles of the node'),
    ageColumn,
    col('Version', 'string', 'Kubelet Version reported by the node.'),
    col('Internal-IP', 'string', 'List of addresses reachable to the node.', 1),
    col('External-IP', 'string', 'List of addresses reachable to the node.', 1),
    col('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', 1),
    col('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
    col('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', 1),
  ],
  cells(node, now) {
    const states: string[] = [];
    const readyCond = arr(status(node), 'conditions').find((c) => str(c, 'type') === 'Ready');
    if (readyCond) states.push(str(readyCond, 'status') === 'True' ? 'Ready' : 'NotReady');
    if (states.length === 0) states.push('Unknown');
    if (spec(node).unschedulable === true) states.push('SchedulingDisabled');
    const info = recOpt(status(node), 'nodeInfo');
    return [
      node.metadata.name,
      states.join(','),
      nodeRoles(node),
      age(node, now),
      str(info, 'kubeletVersion'),
      nodeAddress(node, 'InternalIP'),
      nodeAddress(node, 'ExternalIP'),
      str(info, 'osImage') || '<unknown>',
      str(info, 'kernelVersion') || '<unknown>',
      str(info, 'containerRuntimeVersion') || '<unknown>',
    ];
  },
};

/** formatEndpoints: at most three ip:port, then " + N more...". */
export function formatEndpoints(ep: KObject): string {
  const subsets = Array.isArray(ep.subsets) ? (ep.subsets as unknown[]).filter(isRec) : [];
  if (subsets.length === 0) return '<none>';
  const list: string[] = [];
  const max = 3;
  let more = false;
  let count = 0;
  for (const ss of subsets) {
    const addrs = arr(ss, 'addresses');
    const ports = arr(ss, 'ports');
    if (ports.length === 0) {
      count += addrs.length;
      for (const a of addrs) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(str(a, 'ip'));
      }
      continue;
    }
    for (const p of ports) {
      count += addrs.length;
      for (const a of addrs) {
        if (list.length === max) {
          more = true;
          break;
        }
        const ip = str(a, 'ip');
        list.push(ip.includes(':') ? `[${ip}]:${num(p, 'port')}` : `${ip}:${num(p, 'port')}`);
      }
    }
  }
  const joined = list.join(',');
  return more ? `${joined} + ${count - max} more...` : joined;
}

export const endpointsTable: TableConvertor = {
  columns: [nameColumn, col('Endpoints', 'string', 'Endpoints of the service'), ageColumn],
  cells: (ep, now) => [ep.metadata.name, formatEndpoints(ep), age(ep, now)],
};

const count = (v: unknown) => (isRec(v) ? Object.keys(v).length : 0);

export const configMapTable: TableConvertor = {
  columns: [nameColumn, col('Data', 'string', 'Data contains the configuration data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.'), ageColumn],
  cells: (cm, now) => [cm.metadata.name, count(cm.data) + count(cm.binaryData), age(cm, now)],
};

export const secretTable: TableConvertor = {
  columns: [nameColumn, col('Type', 'string', 'Used to facilitate programmatic handling of secret data.'), col('Data', 'string', 'Data contains the secret data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4'), ageColumn],
  cells: (s, now) => [s.metadata.name, typeof s.type === 'string' ? s.type : '', count(s.data), age(s, now)],
};

export const serviceAccountTable: TableConvertor = {
  columns: [nameColumn, col('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.'), ageColumn],
  cells: (sa, now) => [sa.metadata.name, Array.isArray(sa.secrets) ? sa.secrets.length : 0, age(sa, now)],
};

function eventSource(ev: KObject): string {
  const src = isRec(ev.source) ? (ev.source as Rec) : {};
  const component = str(src, 'component') || (typeof ev.reportingComponent === 'string' ? ev.reportingComponent : '');
  const instance = str(src, 'host') || (typeof ev.reportingInstance === 'string' ? ev.reportingInstance : '');
  if (!component) return '';
  return instance ? `${component}, ${instance}` : component;
}

export const eventTable: TableConvertor = {
  columns: [
    col('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    col('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    col('Reason', 'string', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    col('Object', 'string', 'The object that this event is about.'),
    col('Subobject', 'string', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].', 1),
    col('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', 1),
    col('Message', 'string', 'A human-readable description of the status of this operation.'),
    col('First Seen', 'string', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', 1),
    col('Count', 'string', 'The number of times this event has occurred.', 1),
    { ...nameColumn, priority: 1 },
  ],
  cells(ev, now) {
    const first = ev.firstTimestamp ? translateTimestampSince(ev.firstTimestamp, now) : translateTimestampSince(ev.eventTime, now);
    let last = ev.lastTimestamp ? translateTimestampSince(ev.lastTimestamp, now) : first;
    let n = typeof ev.count === 'number' ? ev.count : 0;
    const series = isRec(ev.series) ? (ev.series as Rec) : undefined;
    if (series) {
      last = translateTimestampSince(series.lastObservedTime, now);
      n = num(series, 'count') ?? 0;
    } else if (n === 0) n = 1;
    const io = isRec(ev.involvedObject) ? (ev.involvedObject as Rec) : {};
    const kind = str(io, 'kind').toLowerCase();
    const target = str(io, 'name') ? `${kind}/${str(io, 'name')}` : kind;
    const message = typeof ev.message === 'string' ? ev.message.trim() : '';
    return [last, ev.type ?? '', ev.reason ?? '', target, str(io, 'fieldPath'), eventSource(ev), message, first, n, ev.metadata.name];
  },
};

export const leaseTable: TableConvertor = {
  columns: [nameColumn, col('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.'), ageColumn],
  cells: (l, now) => [l.metadata.name, str(spec(l), 'holderIdentity'), age(l, now)],
};
