// The baseline checks of Pod Security Standards, as kube 1.32 runs them
// (pod-security-admission/policy/check_*.go): each forbids one known
// privilege escalation and words its finding exactly as kube does, because
// users compare these messages with the docs and with real clusters.

import { majorMinor } from './api';
import { ALLOWED, forbid, type Check, type CheckResult } from './check';
import { allContainers, containersPhrase, goQuote, joinQuote, pluralize, sortedUnique, type PodMetadata, type PodSpec, type SELinuxOptions } from './podSpec';

const V1_0 = majorMinor(1, 0);

/** spec.hostNetwork, spec.hostPID, spec.hostIPC: unset or false. */
function hostNamespaces(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const set = [spec.hostNetwork && 'hostNetwork=true', spec.hostPID && 'hostPID=true', spec.hostIPC && 'hostIPC=true'].filter((s): s is string => !!s);
  return set.length > 0 ? forbid('host namespaces', set.join(', ')) : ALLOWED;
}

/** securityContext.privileged: unset or false. */
function privileged(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad = allContainers(spec).filter((c) => c.securityContext?.privileged === true).map((c) => c.name);
  return bad.length > 0 ? forbid('privileged', `${containersPhrase(bad)} must not set securityContext.privileged=true`) : ALLOWED;
}

/** The capabilities a container runtime grants by default; adding anything else is forbidden. */
const DEFAULT_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

function capabilitiesBaseline(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const caps: string[] = [];
  for (const c of allContainers(spec)) {
    const add = c.securityContext?.capabilities?.add ?? [];
    const extra = add.filter((cap) => !DEFAULT_CAPABILITIES.has(cap));
    if (extra.length > 0) {
      bad.push(c.name);
      caps.push(...extra);
    }
  }
  if (bad.length === 0) return ALLOWED;
  return forbid('non-default capabilities', `${containersPhrase(bad)} must not include ${joinQuote(sortedUnique(caps))} in securityContext.capabilities.add`);
}

function hostPathVolumes(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad = (spec.volumes ?? []).filter((v) => v.hostPath != null).map((v) => v.name);
  return bad.length > 0 ? forbid('hostPath volumes', `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}`) : ALLOWED;
}

function hostPorts(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const ports: string[] = [];
  for (const c of allContainers(spec)) {
    const used = (c.ports ?? []).filter((p) => p.hostPort != null && p.hostPort !== 0).map((p) => String(p.hostPort));
    if (used.length > 0) {
      bad.push(c.name);
      ports.push(...used);
    }
  }
  if (bad.length === 0) return ALLOWED;
  const list = sortedUnique(ports);
  return forbid('hostPort', `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', list.length)} ${list.join(', ')}`);
}

const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

function allowedAppArmorAnnotation(v: string): boolean {
  return v === '' || v === 'runtime/default' || v.startsWith('localhost/');
}

/** appArmorProfile.type (pod and containers) RuntimeDefault or Localhost; the beta annotations runtime/default or localhost/*. */
function appArmorProfile(meta: PodMetadata, spec: PodSpec): CheckResult {
  const allowedType = (t: string | undefined): boolean => t === 'RuntimeDefault' || t === 'Localhost';
  const setters: string[] = [];
  const badValues: string[] = [];
  const podProfile = spec.securityContext?.appArmorProfile;
  if (podProfile && !allowedType(podProfile.type)) {
    setters.push('pod');
    badValues.push(podProfile.type ?? '');
  }
  const bad: string[] = [];
  for (const c of allContainers(spec)) {
    const p = c.securityContext?.appArmorProfile;
    if (p && !allowedType(p.type)) {
      bad.push(c.name);
      badValues.push(p.type ?? '');
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  const annotations = Object.entries(meta.annotations ?? {})
    .filter(([k, v]) => k.startsWith(APPARMOR_ANNOTATION_PREFIX) && !allowedAppArmorAnnotation(v))
    .map(([k, v]) => `${k}=${goQuote(v)}`)
    .sort();
  const values = [...sortedUnique(badValues), ...annotations];
  if (annotations.length > 0) setters.push(pluralize('annotation', 'annotations', annotations.length));
  if (setters.length === 0) return ALLOWED;
  return forbid(pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length), `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(values)}`);
}

const SELINUX_ALLOWED_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);

/** seLinuxOptions.type only the container types; user and role never. */
function seLinuxOptions(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const badTypes: string[] = [];
  let setUser = false;
  let setRole = false;
  const valid = (o: SELinuxOptions): boolean => {
    let ok = true;
    if (!SELINUX_ALLOWED_TYPES.has(o.type ?? '')) {
      ok = false;
      badTypes.push(o.type ?? '');
    }
    if (o.user) (ok = false), (setUser = true);
    if (o.role) (ok = false), (setRole = true);
    return ok;
  };
  const setters: string[] = [];
  const podOpts = spec.securityContext?.seLinuxOptions;
  if (podOpts && !valid(podOpts)) setters.push('pod');
  const bad = allContainers(spec)
    .filter((c) => {
      const o = c.securityContext?.seLinuxOptions;
      return o ? !valid(o) : false;
    })
    .map((c) => c.name);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  const data: string[] = [];
  const types = sortedUnique(badTypes);
  if (types.length > 0) data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
  if (setUser) data.push('user may not be set');
  if (setRole) data.push('role may not be set');
  return forbid('seLinuxOptions', `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`);
}

/** securityContext.procMount unset or Default (the masked /proc). */
function procMount(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of allContainers(spec)) {
    const pm = c.securityContext?.procMount;
    if (pm != null && pm !== 'Default') {
      bad.push(c.name);
      types.push(pm);
    }
  }
  if (bad.length === 0) return ALLOWED;
  return forbid('procMount', `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedUnique(types))}`);
}

export const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
export const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

/** Before 1.19 seccomp was set by the alpha annotations: runtime/default, docker/default or localhost/*. */
function seccompBaselineV1Dot0(meta: PodMetadata, spec: PodSpec): CheckResult {
  const ann = meta.annotations ?? {};
  const validValue = (v: string): boolean => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');
  const forbidden = new Set<string>();
  const podValue = ann[SECCOMP_POD_ANNOTATION];
  if (podValue !== undefined && !validValue(podValue)) forbidden.add(`${SECCOMP_POD_ANNOTATION}=${goQuote(podValue)}`);
  for (const c of allContainers(spec)) {
    const key = SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.name;
    const v = ann[key];
    if (v !== undefined && !validValue(v)) forbidden.add(`${key}=${goQuote(v)}`);
  }
  if (forbidden.size === 0) return ALLOWED;
  const values = sortedUnique(forbidden);
  return forbid('seccompProfile', `forbidden ${pluralize('annotation', 'annotations', values.length)} ${values.join(', ')}`);
}

export function validSeccompType(t: string | undefined): boolean {
  return t === 'Localhost' || t === 'RuntimeDefault';
}

/** From 1.19: seccompProfile.type, where set, RuntimeDefault or Localhost (Unconfined is forbidden). */
function seccompBaselineV1Dot19(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const setters: string[] = [];
  const badValues: string[] = [];
  const podProfile = spec.securityContext?.seccompProfile;
  if (podProfile && !validSeccompType(podProfile.type)) {
    setters.push('pod');
    badValues.push(podProfile.type ?? '');
  }
  const bad: string[] = [];
  for (const c of allContainers(spec)) {
    const p = c.securityContext?.seccompProfile;
    if (p && !validSeccompType(p.type)) {
      bad.push(c.name);
      badValues.push(p.type ?? '');
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  return forbid('seccompProfile', `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(badValues))}`);
}

const SYSCTLS_V1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const SYSCTLS_V1_27 = [...SYSCTLS_V1_0, 'net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_V1_29 = [...SYSCTLS_V1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const SYSCTLS_V1_32 = [...SYSCTLS_V1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

/** Only the namespaced, pod-isolated "safe" sysctls; the safe set grew in 1.27, 1.29 and 1.32. */
function sysctlsAllowing(allowed: readonly string[]): (meta: PodMetadata, spec: PodSpec) => CheckResult {
  const set = new Set(allowed);
  return (_meta, spec) => {
    const bad = (spec.securityContext?.sysctls ?? []).map((s) => s.name).filter((n) => !set.has(n));
    return bad.length > 0 ? forbid('forbidden sysctls', bad.join(', ')) : ALLOWED;
  };
}

/** windowsOptions.hostProcess (pod and containers): unset or false. */
function windowsHostProcess(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const setters: string[] = [];
  if (spec.securityContext?.windowsOptions?.hostProcess === true) setters.push('pod');
  const bad = allContainers(spec)
    .filter((c) => c.securityContext?.windowsOptions?.hostProcess === true)
    .map((c) => c.name);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  return forbid('hostProcess', `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`);
}

export const CHECK_HOST_PATH_VOLUMES = 'hostPathVolumes';
export const CHECK_CAPABILITIES_BASELINE = 'capabilities_baseline';
export const CHECK_SECCOMP_BASELINE = 'seccompProfile_baseline';

export const BASELINE_CHECKS: Check[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minimumVersion: V1_0, checkPod: appArmorProfile }] },
  { id: CHECK_CAPABILITIES_BASELINE, level: 'baseline', versions: [{ minimumVersion: V1_0, checkPod: capabilitiesBaseline }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minimumVersion: V1_0, checkPod: hostNamespaces }] },
  { id: CHECK_HOST_PATH_VOLUMES, level: 'baseline', versions: [{ minimumVersion: V1_0, checkPod: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minimumVersion: V1_0, checkPod: hostPorts }] },
  { id: 'privileged', level: 'baseline', versions: [{ minimumVersion: V1_0, checkPod: privileged }] },
  { id: 'procMount', level: 'baseline', versions: [{ minimumVersion: V1_0, checkPod: procMount }] },
  { id: 'seLinuxOptions', level: 'baseline', versions: [{ minimumVersion: V1_0, checkPod: seLinuxOptions }] },
  {
    id: CHECK_SECCOMP_BASELINE,
    level: 'baseline',
    versions: [
      { minimumVersion: V1_0, checkPod: seccompBaselineV1Dot0 },
      { minimumVersion: majorMinor(1, 19), checkPod: seccompBaselineV1Dot19 },
    ],
  },
  {
    id: 'sysctls',
    level: 'baseline',
    versions: [
      { minimumVersion: V1_0, checkPod: sysctlsAllowing(SYSCTLS_V1_0) },
      { minimumVersion: majorMinor(1, 27), checkPod: sysctlsAllowing(SYSCTLS_V1_27) },
      { minimumVersion: majorMinor(1, 29), checkPod: sysctlsAllowing(SYSCTLS_V1_29) },
      { minimumVersion: majorMinor(1, 32), checkPod: sysctlsAllowing(SYSCTLS_V1_32) },
    ],
  },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minimumVersion: V1_0, checkPod: windowsHostProcess }] },
];
