// The restricted checks of Pod Security Standards, as kube 1.32 runs them:
// current hardening best practice on top of baseline. Several were relaxed
// for Windows pods (spec.os.name=windows) from policy version 1.25, where
// the Linux-only fields cannot be set at all; three replace the baseline
// check they make redundant (OverrideCheckIDs).

import { majorMinor } from './api';
import { ALLOWED, forbid, type Check, type CheckPodFn, type CheckResult } from './check';
import { CHECK_CAPABILITIES_BASELINE, CHECK_HOST_PATH_VOLUMES, CHECK_SECCOMP_BASELINE, validSeccompType } from './checksBaseline';
import { allContainers, containersPhrase, isWindowsPod, joinQuote, pluralize, sortedUnique, type PodMetadata, type PodSpec } from './podSpec';

/** From 1.25 a Windows pod passes: the API rejects these Linux fields on it anyway. */
function exceptWindows(check: CheckPodFn): CheckPodFn {
  return (meta, spec) => (isWindowsPod(spec) ? ALLOWED : check(meta, spec));
}

/** securityContext.allowPrivilegeEscalation must be set to false on every container. */
function allowPrivilegeEscalation(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad = allContainers(spec)
    .filter((c) => c.securityContext?.allowPrivilegeEscalation !== false)
    .map((c) => c.name);
  if (bad.length === 0) return ALLOWED;
  return forbid('allowPrivilegeEscalation != false', `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`);
}

/** Drop ALL; add at most NET_BIND_SERVICE. */
function capabilitiesRestricted(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbiddenCaps: string[] = [];
  for (const c of allContainers(spec)) {
    const caps = c.securityContext?.capabilities;
    if (!caps) {
      missingDropAll.push(c.name);
      continue;
    }
    if (!(caps.drop ?? []).includes('ALL')) missingDropAll.push(c.name);
    const extra = (caps.add ?? []).filter((cap) => cap !== 'NET_BIND_SERVICE');
    if (extra.length > 0) {
      addingForbidden.push(c.name);
      forbiddenCaps.push(...extra);
    }
  }
  const details: string[] = [];
  if (missingDropAll.length > 0) details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (addingForbidden.length > 0) {
    details.push(`${containersPhrase(addingForbidden)} must not include ${joinQuote(sortedUnique(forbiddenCaps))} in securityContext.capabilities.add`);
  }
  return details.length > 0 ? forbid('unrestricted capabilities', details.join('; ')) : ALLOWED;
}

/** Inline volume sources a restricted pod may use; every other type is named in the message. */
const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];

/** The restricted types in kube's switch order (the first one set names the volume's type). */
const RESTRICTED_VOLUME_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'nfs',
  'iscsi',
  'glusterfs',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'fc',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'portworxVolume',
  'photonPersistentDisk',
  'scaleIO',
  'storageos',
];

function restrictedVolumes(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const v of spec.volumes ?? []) {
    if (ALLOWED_VOLUME_SOURCES.some((s) => v[s] != null)) continue;
    bad.push(v.name);
    types.push(RESTRICTED_VOLUME_SOURCES.find((s) => v[s] != null) ?? 'unknown');
  }
  if (bad.length === 0) return ALLOWED;
  const list = sortedUnique(types);
  return forbid(
    'restricted volume types',
    `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', list.length)} ${joinQuote(list)}`,
  );
}

/** runAsNonRoot=true on the pod (containers may leave it unset) or on every container; never false. */
function runAsNonRoot(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const setters: string[] = [];
  let podNonRoot = false;
  const podValue = spec.securityContext?.runAsNonRoot;
  if (podValue === false) setters.push('pod');
  else if (podValue === true) podNonRoot = true;
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const c of allContainers(spec)) {
    const v = c.securityContext?.runAsNonRoot;
    if (v != null) {
      if (!v) explicitlyBad.push(c.name);
    } else if (!podNonRoot) implicitlyBad.push(c.name);
  }
  if (explicitlyBad.length > 0) setters.push(containersPhrase(explicitlyBad));
  if (setters.length > 0) return forbid('runAsNonRoot != true', `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false`);
  if (implicitlyBad.length > 0) return forbid('runAsNonRoot != true', `pod or ${containersPhrase(implicitlyBad)} must set securityContext.runAsNonRoot=true`);
  return ALLOWED;
}

/** runAsUser never 0 (unset is fine: runAsNonRoot covers the image's user). */
function runAsUser(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const setters: string[] = [];
  if (spec.securityContext?.runAsUser === 0) setters.push('pod');
  const bad = allContainers(spec)
    .filter((c) => c.securityContext?.runAsUser === 0)
    .map((c) => c.name);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  return setters.length > 0 ? forbid('runAsUser=0', `${setters.join(' and ')} must not set runAsUser=0`) : ALLOWED;
}

/** seccompProfile.type RuntimeDefault or Localhost, on the pod or on every container. */
function seccompRestricted(_meta: PodMetadata, spec: PodSpec): CheckResult {
  const setters: string[] = [];
  const badValues: string[] = [];
  let podSet = false;
  const podProfile = spec.securityContext?.seccompProfile;
  if (podProfile) {
    if (!validSeccompType(podProfile.type)) {
      setters.push('pod');
      badValues.push(podProfile.type ?? '');
    } else podSet = true;
  }
  const explicitlyBad: string[] = [];
  const implicitlyBad: string[] = [];
  for (const c of allContainers(spec)) {
    const p = c.securityContext?.seccompProfile;
    if (p) {
      if (!validSeccompType(p.type)) {
        explicitlyBad.push(c.name);
        badValues.push(p.type ?? '');
      }
    } else if (!podSet) implicitlyBad.push(c.name);
  }
  if (explicitlyBad.length > 0) setters.push(containersPhrase(explicitlyBad));
  if (setters.length > 0) {
    return forbid('seccompProfile', `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(badValues))}`);
  }
  if (implicitlyBad.length > 0) {
    return forbid('seccompProfile', `pod or ${containersPhrase(implicitlyBad)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
  }
  return ALLOWED;
}

const V1_25 = majorMinor(1, 25);

export const RESTRICTED_CHECKS: Check[] = [
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    versions: [
      { minimumVersion: majorMinor(1, 8), checkPod: allowPrivilegeEscalation },
      { minimumVersion: V1_25, checkPod: exceptWindows(allowPrivilegeEscalation) },
    ],
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    versions: [
      { minimumVersion: majorMinor(1, 22), checkPod: capabilitiesRestricted, overrideCheckIDs: [CHECK_CAPABILITIES_BASELINE] },
      { minimumVersion: V1_25, checkPod: exceptWindows(capabilitiesRestricted), overrideCheckIDs: [CHECK_CAPABILITIES_BASELINE] },
    ],
  },
  {
    id: 'restrictedVolumes',
    level: 'restricted',
    versions: [{ minimumVersion: majorMinor(1, 0), checkPod: restrictedVolumes, overrideCheckIDs: [CHECK_HOST_PATH_VOLUMES] }],
  },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minimumVersion: majorMinor(1, 0), checkPod: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minimumVersion: majorMinor(1, 23), checkPod: runAsUser }] },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    versions: [
      { minimumVersion: majorMinor(1, 19), checkPod: seccompRestricted, overrideCheckIDs: [CHECK_SECCOMP_BASELINE] },
      { minimumVersion: V1_25, checkPod: exceptWindows(seccompRestricted), overrideCheckIDs: [CHECK_SECCOMP_BASELINE] },
    ],
  },
];
