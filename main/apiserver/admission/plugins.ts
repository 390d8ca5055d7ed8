// The admission plugins kube-apiserver knows, in the order they run
// (pkg/kubeapiserver/options/plugins.go AllOrderedPlugins, as in 1.32), which
// of them are on by default, and the registry of those this server
// implements: name → factory(env, ctx).
//
// ADDING A PLUGIN (colleagues: PodSecurity, the webhooks, the policies): add
// ONE import and ONE line to ADMISSION_PLUGIN_FACTORIES below, e.g.
//   PodSecurity: podSecurityPlugin,        // from './podsecurity/index'
// A factory may take only (env); ctx carries the plugin's configuration from
// --admission-control-config-file (ctx.config: the parsed `configuration`
// object, or the parsed file at `path`; undefined when none) and the legacy
// per-plugin flags. Where it sits in the chain comes from ADMISSION_PLUGIN_ORDER,
// not from this map. An enabled plugin with no factory here is skipped with a
// log line (chain.ts), never an error.

import type { AdmissionPluginFactory } from './interfaces';
import { namespaceLifecycle } from './namespaceLifecycle';
import { admissionForbidden } from './errors/forbidden';
import { defaultTolerationSecondsPlugin } from './defaultTolerationSeconds';
import { limitRangerPlugin } from './limitRanger';
import { nodeRestrictionPlugin } from './nodeRestriction';
import { resourceQuotaPlugin } from './resourceQuota';
import { serviceAccountPlugin } from './serviceAccount';
import { mutatingWebhookPlugin, validatingWebhookPlugin } from './webhook/index';
import { podSecurityPlugin } from './podsecurity/index';
import { validatingAdmissionPolicyPlugin } from './policy/index';

/** Every plugin name kube-apiserver 1.32 accepts, in execution order. */
export const ADMISSION_PLUGIN_ORDER = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  // webhook, resourcequota, and deny plugins go at the end
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
] as const;

export type AdmissionPluginName = (typeof ADMISSION_PLUGIN_ORDER)[number];

/** kube-apiserver's default-on set (the complement of DefaultOffAdmissionPlugins). */
export const DEFAULT_ON_ADMISSION_PLUGINS: ReadonlySet<AdmissionPluginName> = new Set<AdmissionPluginName>([
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'DefaultStorageClass',
  'PersistentVolumeClaimResize',
  'DefaultTolerationSeconds',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'StorageObjectInUseProtection',
  'Priority',
  'TaintNodesByCondition',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'PodSecurity',
  'ValidatingAdmissionPolicy',
]);

/** The plugins this server implements. One line per plugin; see the note at the top. */
export const ADMISSION_PLUGIN_FACTORIES: Partial<Record<AdmissionPluginName, AdmissionPluginFactory>> = {
  AlwaysAdmit: () => ({ name: 'AlwaysAdmit', admit() {} }),
  // handles: what its admit (namespaced creates) and validate (namespace deletes) look at; spares the trace's before-copy on every other write.
  NamespaceLifecycle: (env) => ({
    ...namespaceLifecycle(env),
    handles: (a) => (a.operation === 'CREATE' && a.namespace !== '') || (a.operation === 'DELETE' && a.group === '' && a.resource === 'namespaces'),
  }),
  LimitRanger: limitRangerPlugin,
  ServiceAccount: serviceAccountPlugin,
  NodeRestriction: nodeRestrictionPlugin,
  PodSecurity: (env, ctx) => podSecurityPlugin(env, ctx.config),
  DefaultTolerationSeconds: defaultTolerationSecondsPlugin,
  ResourceQuota: resourceQuotaPlugin,
  MutatingAdmissionWebhook: mutatingWebhookPlugin,
  ValidatingAdmissionWebhook: validatingWebhookPlugin,
  ValidatingAdmissionPolicy: validatingAdmissionPolicyPlugin,
  AlwaysDeny: () => ({
    name: 'AlwaysDeny',
    admit(a) {
      throw admissionForbidden(a, 'admission control is denying all modifications');
    },
  }),
};

export function isKnownAdmissionPlugin(name: string): name is AdmissionPluginName {
  return (ADMISSION_PLUGIN_ORDER as readonly string[]).includes(name);
}

/**
 * The enabled plugin names in execution order (kube's enabledPluginNames):
 * the default-on set, plus --enable-admission-plugins, minus
 * --disable-admission-plugins (an explicitly enabled name wins over the
 * default-off list, never over an explicit disable: the two may not overlap).
 * With the deprecated --admission-control, exactly the names given.
 */
export function enabledAdmissionPlugins(enable: string[], disable: string[], admissionControl?: string[]): AdmissionPluginName[] {
  if (admissionControl) return ADMISSION_PLUGIN_ORDER.filter((n) => admissionControl.includes(n));
  return ADMISSION_PLUGIN_ORDER.filter((n) => !disable.includes(n) && (DEFAULT_ON_ADMISSION_PLUGINS.has(n) || enable.includes(n)));
}

/** kube's flag validation errors (AdmissionOptions.Validate, generic then kube-apiserver's). */
export function validateAdmissionPluginFlags(enable: string[], disable: string[], admissionControl?: string[]): string[] {
  const errs: string[] = [];
  if (admissionControl && (enable.length > 0 || disable.length > 0)) {
    errs.push('admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive');
  }
  for (const n of admissionControl ?? []) if (!isKnownAdmissionPlugin(n)) errs.push(`admission-control plugin "${n}" is unknown`);
  for (const n of enable) if (!isKnownAdmissionPlugin(n)) errs.push(`enable-admission-plugins plugin "${n}" is unknown`);
  for (const n of disable) if (!isKnownAdmissionPlugin(n)) errs.push(`disable-admission-plugins plugin "${n}" is unknown`);
  const overlap = [...new Set(enable.filter((n) => disable.includes(n)))].sort();
  if (overlap.length > 0) errs.push(`[${overlap.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  return errs;
}
