// Every Pod Security check of kube 1.32, one table row per finding: the pod
// (metadata + spec as v1 JSON), the level:version evaluated, and the exact
// reason and detail kube gives (from pod-security-admission/policy's checks
// and their tests). Allowed rows prove the checks do not over-report.

import { describe, expect, it } from 'vitest';
import { majorMinor, LATEST, type LevelVersion } from '../../../../../main/apiserver/admission/podsecurity/api';
import type { PodMetadata, PodSpec } from '../../../../../main/apiserver/admission/podsecurity/podSpec';
import { aggregateCheckResults, forbiddenDetail, newEvaluator } from '../../../../../main/apiserver/admission/podsecurity/registry';

const evaluator = newEvaluator();
const baseline: LevelVersion = { level: 'baseline', version: LATEST };
const restricted: LevelVersion = { level: 'restricted', version: LATEST };

/** A container that passes restricted. */
const good = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  image: 'nginx',
  ...extra,
  securityContext: {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    runAsNonRoot: true,
    seccompProfile: { type: 'RuntimeDefault' },
    ...((extra.securityContext as object) ?? {}),
  },
});

interface Row {
  name: string;
  lv?: LevelVersion;
  meta?: PodMetadata;
  spec: PodSpec;
  /** The aggregated message part: `reason (detail), ...`; '' when allowed. */
  want: string;
}

const rows: Row[] = [
  // hostNamespaces
  { name: 'host namespaces: all three', spec: { hostNetwork: true, hostPID: true, hostIPC: true, containers: [good('a')] }, want: 'host namespaces (hostNetwork=true, hostPID=true, hostIPC=true)' },
  { name: 'host namespaces: false is fine', spec: { hostNetwork: false, containers: [good('a')] }, want: '' },
  // privileged
  { name: 'privileged: one container', spec: { containers: [good('a', { securityContext: { privileged: true } })] }, want: 'privileged (container "a" must not set securityContext.privileged=true)' },
  {
    name: 'privileged: init and regular, init first',
    spec: { containers: [good('b', { securityContext: { privileged: true } })], initContainers: [good('i', { securityContext: { privileged: true } })] },
    want: 'privileged (containers "i", "b" must not set securityContext.privileged=true)',
  },
  { name: 'privileged: ephemeral containers count', spec: { containers: [good('a')], ephemeralContainers: [good('dbg', { securityContext: { privileged: true } })] }, want: 'privileged (container "dbg" must not set securityContext.privileged=true)' },
  // capabilities_baseline
  {
    name: 'capabilities: non-default at baseline, sorted unique',
    lv: baseline,
    spec: { containers: [{ name: 'a', securityContext: { capabilities: { add: ['SYS_ADMIN', 'NET_ADMIN', 'CHOWN'] } } }, { name: 'b', securityContext: { capabilities: { add: ['NET_ADMIN'] } } }] },
    want: 'non-default capabilities (containers "a", "b" must not include "NET_ADMIN", "SYS_ADMIN" in securityContext.capabilities.add)',
  },
  { name: 'capabilities: default set is baseline', lv: baseline, spec: { containers: [{ name: 'a', securityContext: { capabilities: { add: ['CHOWN', 'KILL', 'NET_BIND_SERVICE'] } } }] }, want: '' },
  // hostPathVolumes (baseline) vs restrictedVolumes (restricted overrides it)
  { name: 'hostPath volumes at baseline', lv: baseline, spec: { containers: [{ name: 'a' }], volumes: [{ name: 'h', hostPath: { path: '/' } }, { name: 'e', emptyDir: {} }] }, want: 'hostPath volumes (volume "h")' },
  {
    name: 'restricted volumes replace hostPath volumes',
    spec: { containers: [good('a')], volumes: [{ name: 'h', hostPath: { path: '/' } }, { name: 'n', nfs: { server: 's', path: '/' } }, { name: 'c', configMap: { name: 'x' } }] },
    want: 'restricted volume types (volumes "h", "n" use restricted volume types "hostPath", "nfs")',
  },
  { name: 'restricted volumes: unknown source', spec: { containers: [good('a')], volumes: [{ name: 'x' }] }, want: 'restricted volume types (volume "x" uses restricted volume type "unknown")' },
  { name: 'restricted volumes: allowed sources', spec: { containers: [good('a')], volumes: [{ name: 's', secret: {} }, { name: 'p', projected: {} }, { name: 'pvc', persistentVolumeClaim: { claimName: 'c' } }, { name: 'd', downwardAPI: {} }, { name: 'csi', csi: { driver: 'x' } }, { name: 'eph', ephemeral: {} }] }, want: '' },
  // hostPorts
  {
    name: 'hostPorts: sorted as strings',
    lv: baseline,
    spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 81, hostPort: 10000 }] }, { name: 'b', ports: [{ containerPort: 80, hostPort: 0 }] }] },
    want: 'hostPort (container "a" uses hostPorts 10000, 8080)',
  },
  { name: 'hostPorts: two containers', lv: baseline, spec: { containers: [{ name: 'a', ports: [{ hostPort: 80 }] }, { name: 'b', ports: [{ hostPort: 80 }] }] }, want: 'hostPort (containers "a", "b" use hostPort 80)' },
  // appArmorProfile
  { name: 'appArmor: unconfined pod', lv: baseline, spec: { securityContext: { appArmorProfile: { type: 'Unconfined' } }, containers: [{ name: 'a' }] }, want: 'forbidden AppArmor profile (pod must not set AppArmor profile type to "Unconfined")' },
  {
    name: 'appArmor: container field and annotations',
    lv: baseline,
    meta: {
      annotations: {
        'container.apparmor.security.beta.kubernetes.io/': 'bogus',
        'container.apparmor.security.beta.kubernetes.io/b': 'runtime/default',
        'container.apparmor.security.beta.kubernetes.io/d': 'localhost/foo',
        'container.apparmor.security.beta.kubernetes.io/e': 'unconfined',
      },
    },
    spec: { containers: [{ name: 'foo', securityContext: { appArmorProfile: { type: 'Unconfined' } } }] },
    want:
      'forbidden AppArmor profiles (container "foo" and annotations must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/="bogus"", "container.apparmor.security.beta.kubernetes.io/e="unconfined"")',
  },
  { name: 'appArmor: runtime default and localhost', lv: baseline, spec: { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } }, containers: [{ name: 'a', securityContext: { appArmorProfile: { type: 'Localhost', localhostProfile: 'p' } } }] }, want: '' },
  // seLinuxOptions
  {
    name: 'seLinux: pod type, container user and role',
    lv: baseline,
    spec: { securityContext: { seLinuxOptions: { type: 'spc_t' } }, containers: [{ name: 'a', securityContext: { seLinuxOptions: { user: 'u', role: 'r' } } }] },
    want: 'seLinuxOptions (pod and container "a" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set)',
  },
  { name: 'seLinux: allowed types and level', lv: baseline, spec: { securityContext: { seLinuxOptions: { type: 'container_t', level: 's0:c1' } }, containers: [{ name: 'a', securityContext: { seLinuxOptions: { type: 'container_kvm_t' } } }] }, want: '' },
  // procMount
  { name: 'procMount: Unmasked', lv: baseline, spec: { containers: [{ name: 'a', securityContext: { procMount: 'Unmasked' } }, { name: 'b', securityContext: { procMount: 'Default' } }] }, want: 'procMount (container "a" must not set securityContext.procMount to "Unmasked")' },
  // seccompProfile_baseline
  {
    name: 'seccomp baseline: Unconfined on pod and container',
    lv: baseline,
    spec: { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'a', securityContext: { seccompProfile: { type: 'Unconfined' } } }, { name: 'b' }] },
    want: 'seccompProfile (pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined")',
  },
  {
    name: 'seccomp before 1.19: the alpha annotations',
    lv: { level: 'baseline', version: majorMinor(1, 18) },
    meta: { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined', 'container.seccomp.security.alpha.kubernetes.io/a': 'docker/default', 'container.seccomp.security.alpha.kubernetes.io/b': 'bad' } },
    spec: { containers: [{ name: 'a' }, { name: 'b' }] },
    want: 'seccompProfile (forbidden annotations container.seccomp.security.alpha.kubernetes.io/b="bad", seccomp.security.alpha.kubernetes.io/pod="unconfined")',
  },
  // sysctls and their versions
  { name: 'sysctls: unsafe ones in order', lv: baseline, spec: { securityContext: { sysctls: [{ name: 'kernel.msgmax' }, { name: 'net.ipv4.tcp_syncookies' }, { name: 'vm.swappiness' }] }, containers: [{ name: 'a' }] }, want: 'forbidden sysctls (kernel.msgmax, vm.swappiness)' },
  { name: 'sysctls: tcp_rmem allowed at latest (1.32)', lv: baseline, spec: { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem' }, { name: 'net.ipv4.tcp_keepalive_time' }] }, containers: [{ name: 'a' }] }, want: '' },
  { name: 'sysctls: tcp_rmem forbidden at v1.31', lv: { level: 'baseline', version: majorMinor(1, 31) }, spec: { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem' }, { name: 'net.ipv4.tcp_keepalive_time' }] }, containers: [{ name: 'a' }] }, want: 'forbidden sysctls (net.ipv4.tcp_rmem)' },
  { name: 'sysctls: keepalive forbidden at v1.28', lv: { level: 'baseline', version: majorMinor(1, 28) }, spec: { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_keepalive_time' }, { name: 'net.ipv4.ip_local_reserved_ports' }] }, containers: [{ name: 'a' }] }, want: 'forbidden sysctls (net.ipv4.tcp_keepalive_time)' },
  { name: 'sysctls: v1.99 evaluates as 1.32', lv: { level: 'baseline', version: majorMinor(1, 99) }, spec: { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_wmem' }] }, containers: [{ name: 'a' }] }, want: '' },
  // windowsHostProcess
  {
    name: 'hostProcess: pod and containers',
    lv: baseline,
    spec: { securityContext: { windowsOptions: { hostProcess: true } }, containers: [{ name: 'a', securityContext: { windowsOptions: { hostProcess: true } } }, { name: 'b', securityContext: { windowsOptions: { hostProcess: true } } }] },
    want: 'hostProcess (pod and containers "a", "b" must not set securityContext.windowsOptions.hostProcess=true)',
  },
  // allowPrivilegeEscalation
  { name: 'allowPrivilegeEscalation: unset and true', spec: { containers: [good('a'), good('b', { securityContext: { allowPrivilegeEscalation: true } }), { ...good('c'), securityContext: { ...good('c').securityContext, allowPrivilegeEscalation: undefined } }] }, want: 'allowPrivilegeEscalation != false (containers "b", "c" must set securityContext.allowPrivilegeEscalation=false)' },
  { name: 'allowPrivilegeEscalation: not before v1.8', lv: { level: 'restricted', version: majorMinor(1, 7) }, spec: { securityContext: { runAsNonRoot: true }, containers: [{ name: 'a' }] }, want: '' },
  // capabilities_restricted
  {
    name: 'capabilities restricted: drop ALL missing and forbidden add',
    spec: { containers: [{ ...good('a'), securityContext: { ...good('a').securityContext, capabilities: { add: ['NET_BIND_SERVICE', 'CHOWN'] } } }, { ...good('b'), securityContext: { ...good('b').securityContext, capabilities: undefined } }] },
    want: 'unrestricted capabilities (containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; container "a" must not include "CHOWN" in securityContext.capabilities.add)',
  },
  { name: 'capabilities restricted: NET_BIND_SERVICE may be added', spec: { containers: [good('a', { securityContext: { capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } } })] }, want: '' },
  {
    name: 'capabilities: restricted overrides the baseline check (no double report)',
    spec: { containers: [good('a', { securityContext: { capabilities: { drop: ['ALL'], add: ['SYS_ADMIN'] } } })] },
    want: 'unrestricted capabilities (container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
  },
  // runAsNonRoot
  { name: 'runAsNonRoot: pod true covers containers', spec: { securityContext: { runAsNonRoot: true }, containers: [{ ...good('a'), securityContext: { ...good('a').securityContext, runAsNonRoot: undefined } }] }, want: '' },
  { name: 'runAsNonRoot: explicit false', spec: { securityContext: { runAsNonRoot: false }, containers: [good('a', { securityContext: { runAsNonRoot: false } })] }, want: 'runAsNonRoot != true (pod and container "a" must not set securityContext.runAsNonRoot=false)' },
  { name: 'runAsNonRoot: unset everywhere', spec: { containers: [{ ...good('a'), securityContext: { ...good('a').securityContext, runAsNonRoot: undefined } }] }, want: 'runAsNonRoot != true (pod or container "a" must set securityContext.runAsNonRoot=true)' },
  // runAsUser
  { name: 'runAsUser: 0 on pod and container', spec: { securityContext: { runAsUser: 0 }, containers: [good('a', { securityContext: { runAsUser: 0 } }), good('b', { securityContext: { runAsUser: 1000 } })] }, want: 'runAsUser=0 (pod and container "a" must not set runAsUser=0)' },
  { name: 'runAsUser: not before v1.23', lv: { level: 'restricted', version: majorMinor(1, 22) }, spec: { securityContext: { runAsUser: 0 }, containers: [good('a')] }, want: '' },
  // seccompProfile_restricted
  { name: 'seccomp restricted: unset', spec: { containers: [{ ...good('a'), securityContext: { ...good('a').securityContext, seccompProfile: undefined } }] }, want: 'seccompProfile (pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")' },
  { name: 'seccomp restricted: pod level covers containers', spec: { securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: 'p' } }, containers: [{ ...good('a'), securityContext: { ...good('a').securityContext, seccompProfile: undefined } }] }, want: '' },
  { name: 'seccomp restricted: explicit Unconfined wins over unset', spec: { containers: [good('a', { securityContext: { seccompProfile: { type: 'Unconfined' } } }), { ...good('b'), securityContext: { ...good('b').securityContext, seccompProfile: undefined } }] }, want: 'seccompProfile (container "a" must not set securityContext.seccompProfile.type to "Unconfined")' },
  // Windows pods from 1.25
  { name: 'windows pod: restricted fields exempt from 1.25', spec: { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [{ name: 'w' }] }, want: '' },
  {
    name: 'windows pod: not exempt at v1.24',
    lv: { level: 'restricted', version: majorMinor(1, 24) },
    spec: { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [{ name: 'w' }] },
    want: 'allowPrivilegeEscalation != false (container "w" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "w" must set securityContext.capabilities.drop=["ALL"]), seccompProfile (pod or container "w" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  },
  // The whole restricted message for the classic privileged pod: baseline checks first, then restricted, each by ID.
  {
    name: 'restricted: privileged pod, kube ordering',
    spec: { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] },
    want:
      'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  },
  { name: 'restricted: a compliant pod', spec: { containers: [good('a')], initContainers: [good('i')] }, want: '' },
  { name: 'privileged level checks nothing', lv: { level: 'privileged', version: LATEST }, spec: { hostNetwork: true, containers: [{ name: 'a', securityContext: { privileged: true } }] }, want: '' },
];

describe('Pod Security checks (kube 1.32 messages)', () => {
  it.each(rows)('$name', (row) => {
    const result = aggregateCheckResults(evaluator.evaluatePod(row.lv ?? restricted, row.meta ?? {}, row.spec));
    expect(forbiddenDetail(result)).toBe(row.want);
    expect(result.allowed).toBe(row.want === '');
  });
});
