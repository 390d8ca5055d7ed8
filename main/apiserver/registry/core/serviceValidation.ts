// ValidateService / ValidateServiceUpdate (pkg/apis/core/validation) for
// the fields we serve: ports, types, session affinity, cluster IPs, selector,
// external names; with kube's paths and texts.

import type { KObject } from '../../../kube/object';
import { GoLiteral } from '../../api/status';
import { type ErrorList, duplicate, forbidden, invalid, notSupported, required } from '../../api/validation/field';
import { isDNS1123Label, isDNS1123Subdomain, isValidPortName, isValidPortNum } from '../../api/validation/names';
import { validateLabels } from '../../api/validation/objectMeta';
import { parseIPv4 } from '../allocator/ranges';
import { type Rec, arr, isRec, num, str } from '../common/obj';

export const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const protocols = ['SCTP', 'TCP', 'UDP'];
const validIPMessage = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

export const specOf = (svc: KObject): Rec => (isRec(svc.spec) ? svc.spec : {}) as Rec;
export const clusterIPsOf = (spec: Rec): string[] => (Array.isArray(spec.clusterIPs) ? (spec.clusterIPs as string[]) : []);
export const isHeadless = (spec: Rec) => str(spec, 'clusterIP') === 'None';
export const needsNodePorts = (spec: Rec) => str(spec, 'type') === 'NodePort' || str(spec, 'type') === 'LoadBalancer';

function goServicePortKey(p: Rec): GoLiteral {
  return new GoLiteral(
    `core.ServicePort{Name:"", Protocol:${JSON.stringify(str(p, 'protocol'))}, AppProtocol:(*string)(nil), Port:${num(p, 'port') ?? 0}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
  );
}

function validatePorts(spec: Rec): ErrorList {
  const errs: ErrorList = [];
  const ports = arr(spec, 'ports');
  const type = str(spec, 'type');
  if (ports.length === 0 && !isHeadless(spec) && type !== 'ExternalName') errs.push(required('spec.ports'));
  const names = new Set<string>();
  const keys = new Set<string>();
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    const pp = `spec.ports[${i}]`;
    const name = str(p, 'name');
    if (ports.length > 1 && !name) errs.push(required(`${pp}.name`));
    else if (name) {
      for (const m of isDNS1123Label(name)) errs.push(invalid(`${pp}.name`, name, m));
      if (names.has(name)) errs.push(duplicate(`${pp}.name`, name));
      names.add(name);
    }
    const port = num(p, 'port') ?? 0;
    for (const m of isValidPortNum(port)) errs.push(invalid(`${pp}.port`, port, m));
    const proto = str(p, 'protocol');
    if (!proto) errs.push(required(`${pp}.protocol`));
    else if (!protocols.includes(proto)) errs.push(notSupported(`${pp}.protocol`, proto, protocols));
    const tp = p.targetPort;
    if (typeof tp === 'number') for (const m of isValidPortNum(tp)) errs.push(invalid(`${pp}.targetPort`, tp, m));
    if (typeof tp === 'string') for (const m of isValidPortName(tp)) errs.push(invalid(`${pp}.targetPort`, tp, m));
    const nodePort = num(p, 'nodePort') ?? 0;
    if (nodePort !== 0) {
      if (!needsNodePorts(spec)) errs.push(forbidden(`${pp}.nodePort`, `may not be used when \`type\` is '${type}'`));
      else for (const m of isValidPortNum(nodePort)) errs.push(invalid(`${pp}.nodePort`, nodePort, m));
    }
    if (nodePort !== 0) {
      const npKey = `${nodePort}/${proto}`;
      if (nodePorts.has(npKey)) errs.push(duplicate(`${pp}.nodePort`, nodePort));
      nodePorts.add(npKey);
    }
    const key = `${port}/${proto}`;
    if (keys.has(key)) errs.push(duplicate(pp, goServicePortKey(p)));
    keys.add(key);
  });
  return errs;
}

const goStrings = (xs: string[]) => new GoLiteral(`[]string{${xs.map((i) => JSON.stringify(i)).join(', ')}}`);

/** The headless/type rules of validateService plus ValidateServiceClusterIPsRelatedFields. */
function validateClusterIPs(spec: Rec): ErrorList {
  const errs: ErrorList = [];
  const type = str(spec, 'type');
  const ips = clusterIPsOf(spec);
  const primary = str(spec, 'clusterIP');
  if (type === 'ExternalName') {
    if (ips.length) errs.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (Array.isArray(spec.ipFamilies) && spec.ipFamilies.length) errs.push(forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (spec.ipFamilyPolicy !== undefined) errs.push(forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    return errs;
  }
  if (isHeadless(spec) && (type === 'LoadBalancer' || type === 'NodePort')) errs.push(invalid('spec.clusterIPs[0]', ips[0] ?? 'None', `may not be set to 'None' for ${type} services`));
  if (primary) {
    if (ips.length === 0) errs.push(required('spec.clusterIPs'));
    else if (ips[0] !== primary) errs.push(invalid('spec.clusterIPs', goStrings(ips), 'first value must match `clusterIP`'));
  } else if (ips.length) {
    errs.push(invalid('spec.clusterIPs', goStrings(ips), 'must be empty when `clusterIP` is not specified'));
  }
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) errs.push(invalid('spec.clusterIPs', goStrings(ips), "'None' must be the first and only value"));
      return;
    }
    if (parseIPv4(ip) === undefined) errs.push(invalid(`spec.clusterIPs[${i}]`, ip, validIPMessage));
  });
  return errs;
}

export function validateService(svc: KObject): ErrorList {
  const spec = specOf(svc);
  const errs: ErrorList = [];
  const type = str(spec, 'type');
  if (!SERVICE_TYPES.includes(type)) errs.push(type ? notSupported('spec.type', type, SERVICE_TYPES) : required('spec.type'));
  const affinity = str(spec, 'sessionAffinity');
  if (!['ClientIP', 'None'].includes(affinity)) errs.push(affinity ? notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']) : required('spec.sessionAffinity'));
  if (type === 'ExternalName') {
    // The CNAME may end in a dot to mark it fully qualified.
    const cname = str(spec, 'externalName').replace(/\.$/, '');
    if (!cname) errs.push(required('spec.externalName'));
    else for (const m of isDNS1123Subdomain(cname)) errs.push(invalid('spec.externalName', cname, m));
  }
  if (str(spec, 'sessionAffinity') === 'None' && spec.sessionAffinityConfig !== undefined) errs.push(forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  errs.push(...validatePorts(spec));
  errs.push(...validateClusterIPs(spec));
  if (isRec(spec.selector)) errs.push(...validateLabels(spec.selector as Record<string, string>, 'spec.selector'));
  for (const [i, ip] of ((spec.externalIPs as string[] | undefined) ?? []).entries()) {
    if (parseIPv4(ip) === undefined) errs.push(invalid(`spec.externalIPs[${i}]`, ip, validIPMessage));
  }
  return errs;
}

/** The primary cluster IP may not change except to or from ExternalName (or between headless forms). */
export function validateServiceUpdate(svc: KObject, old: KObject): ErrorList {
  const n = specOf(svc);
  const o = specOf(old);
  if (str(n, 'type') === 'ExternalName' || str(o, 'type') === 'ExternalName') return [];
  if (isHeadless(n) && isHeadless(o)) return [];
  const ni = clusterIPsOf(n);
  const oi = clusterIPsOf(o);
  if (oi.length > 0 && ni.length > 0 && oi[0] !== ni[0]) {
    return [invalid('spec.clusterIPs[0]', new GoLiteral(`[]string{${ni.map((i) => JSON.stringify(i)).join(', ')}}`), 'may not change once set')];
  }
  return [];
}
