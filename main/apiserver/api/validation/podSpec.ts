// PodSpec validation with kube's field paths and messages (the parts of
// pkg/apis/core/validation/validation.go ValidatePodSpec that matter for the
// objects we serve): containers, names, images, ports, policies, volumes.

import { type ErrorList, duplicate, forbidden, invalid, notSupported, required } from './field';
import { isDNS1123Label, isDNS1123Subdomain, isValidPortName, isValidPortNum } from './names';
import { validateLabels, validateAnnotations } from './objectMeta';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRec) : []);
const s = (v: unknown): string => (typeof v === 'string' ? v : '');

const restartPolicies = ['Always', 'OnFailure', 'Never'];
const dnsPolicies = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const pullPolicies = ['Always', 'IfNotPresent', 'Never'];
const messagePolicies = ['File', 'FallbackToLogsOnError'];
const protocols = ['SCTP', 'TCP', 'UDP'];

function validatePorts(ports: Rec[], path: string): ErrorList {
  const errs: ErrorList = [];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const ip = `${path}[${i}]`;
    const name = s(p.name);
    if (name) {
      for (const m of isValidPortName(name)) errs.push(invalid(`${ip}.name`, name, m));
      if (names.has(name)) errs.push(duplicate(`${ip}.name`, name));
      names.add(name);
    }
    const cp = typeof p.containerPort === 'number' ? p.containerPort : 0;
    if (cp === 0) errs.push(required(`${ip}.containerPort`));
    else for (const m of isValidPortNum(cp)) errs.push(invalid(`${ip}.containerPort`, cp, m));
    const hp = typeof p.hostPort === 'number' ? p.hostPort : 0;
    if (hp !== 0) for (const m of isValidPortNum(hp)) errs.push(invalid(`${ip}.hostPort`, hp, m));
    const proto = s(p.protocol);
    if (!proto) errs.push(required(`${ip}.protocol`));
    else if (!protocols.includes(proto)) errs.push(notSupported(`${ip}.protocol`, proto, protocols));
  });
  return errs;
}

function validateContainers(containers: Rec[], path: string, allNames: Set<string>): ErrorList {
  const errs: ErrorList = [];
  containers.forEach((c, i) => {
    const cp = `${path}[${i}]`;
    const name = s(c.name);
    if (!name) errs.push(required(`${cp}.name`));
    else {
      for (const m of isDNS1123Label(name)) errs.push(invalid(`${cp}.name`, name, m));
      if (allNames.has(name)) errs.push(duplicate(`${cp}.name`, name));
      allNames.add(name);
    }
    if (!s(c.image)) errs.push(required(`${cp}.image`));
    const pull = s(c.imagePullPolicy);
    if (!pull) errs.push(required(`${cp}.imagePullPolicy`));
    else if (!pullPolicies.includes(pull)) errs.push(notSupported(`${cp}.imagePullPolicy`, pull, pullPolicies));
    const tmp = s(c.terminationMessagePolicy);
    if (!tmp) errs.push(required(`${cp}.terminationMessagePolicy`));
    else if (!messagePolicies.includes(tmp)) errs.push(notSupported(`${cp}.terminationMessagePolicy`, tmp, messagePolicies));
    errs.push(...validatePorts(list(c.ports), `${cp}.ports`));
    const envNames = list(c.env);
    envNames.forEach((e, j) => {
      if (!s(e.name)) errs.push(required(`${cp}.env[${j}].name`));
    });
  });
  return errs;
}

function validateVolumes(volumes: Rec[], path: string): { errs: ErrorList; names: Set<string> } {
  const errs: ErrorList = [];
  const names = new Set<string>();
  volumes.forEach((v, i) => {
    const vp = `${path}[${i}]`;
    const name = s(v.name);
    if (!name) errs.push(required(`${vp}.name`));
    else {
      for (const m of isDNS1123Label(name)) errs.push(invalid(`${vp}.name`, name, m));
      if (names.has(name)) errs.push(duplicate(`${vp}.name`, name));
      names.add(name);
    }
    const sources = Object.keys(v).filter((k) => k !== 'name');
    if (sources.length === 0) errs.push(required(vp, 'must specify a volume type'));
    else if (sources.length > 1) errs.push(forbidden(`${vp}.${sources[1]}`, 'may not specify more than 1 volume type'));
  });
  return { errs, names };
}

function validateMounts(containers: Rec[], path: string, volumeNames: Set<string>): ErrorList {
  const errs: ErrorList = [];
  containers.forEach((c, i) => {
    list(c.volumeMounts).forEach((m, j) => {
      const mp = `${path}[${i}].volumeMounts[${j}]`;
      const name = s(m.name);
      if (!name) errs.push(required(`${mp}.name`));
      else if (!volumeNames.has(name)) errs.push({ type: 'FieldValueNotFound', field: `${mp}.name`, badValue: name });
      if (!s(m.mountPath)) errs.push(required(`${mp}.mountPath`));
    });
  });
  return errs;
}

/** ValidatePodSpec. path is 'spec' for pods, 'spec.template.spec' for templates. */
export function validatePodSpec(spec: Rec | undefined, path: string): ErrorList {
  const errs: ErrorList = [];
  const sp = spec ?? {};
  const vols = validateVolumes(list(sp.volumes), `${path}.volumes`);
  errs.push(...vols.errs);
  const names = new Set<string>();
  const containers = list(sp.containers);
  const inits = list(sp.initContainers);
  errs.push(...validateContainers(inits, `${path}.initContainers`, names));
  if (containers.length === 0) errs.push(required(`${path}.containers`));
  else errs.push(...validateContainers(containers, `${path}.containers`, names));
  errs.push(...validateMounts(inits, `${path}.initContainers`, vols.names));
  errs.push(...validateMounts(containers, `${path}.containers`, vols.names));
  const rp = s(sp.restartPolicy);
  if (!rp) errs.push(required(`${path}.restartPolicy`));
  else if (!restartPolicies.includes(rp)) errs.push(notSupported(`${path}.restartPolicy`, rp, restartPolicies));
  const dp = s(sp.dnsPolicy);
  if (!dp) errs.push(required(`${path}.dnsPolicy`));
  else if (!dnsPolicies.includes(dp)) errs.push(notSupported(`${path}.dnsPolicy`, dp, dnsPolicies));
  if (typeof sp.activeDeadlineSeconds === 'number') {
    const v = sp.activeDeadlineSeconds;
    if (v < 1 || v > 2 ** 31 - 1) errs.push(invalid(`${path}.activeDeadlineSeconds`, v, `must be between 1 and ${2 ** 31 - 1}, inclusive`));
  }
  if (isRec(sp.nodeSelector)) errs.push(...validateLabels(sp.nodeSelector as Record<string, string>, `${path}.nodeSelector`));
  if (s(sp.serviceAccountName)) for (const m of isDNS1123Subdomain(s(sp.serviceAccountName))) errs.push(invalid(`${path}.serviceAccountName`, sp.serviceAccountName, m));
  if (s(sp.nodeName)) for (const m of isDNS1123Subdomain(s(sp.nodeName))) errs.push(invalid(`${path}.nodeName`, sp.nodeName, m));
  if (s(sp.hostname)) for (const m of isDNS1123Label(s(sp.hostname))) errs.push(invalid(`${path}.hostname`, sp.hostname, m));
  return errs;
}

/** ValidatePodTemplateSpec: labels/annotations of the template plus its spec. */
export function validatePodTemplateSpec(template: Rec | undefined, path: string): ErrorList {
  if (!template) return [required(path)];
  const meta = isRec(template.metadata) ? template.metadata : {};
  return [
    ...validateLabels(meta.labels as Record<string, string> | undefined, `${path}.metadata.labels`),
    ...validateAnnotations(meta.annotations as Record<string, string> | undefined, `${path}.metadata.annotations`),
    ...validatePodSpec(isRec(template.spec) ? template.spec : undefined, `${path}.spec`),
  ];
}
