// The admission hook point (kube runs admission inside the REST handlers, not
// as a filter): an ordered list of plugins, all mutating phases first, then
// all validating phases; the first error wins. Empty now — [A2] adds
// NamespaceLifecycle, ServiceAccount, webhooks, policies. Each plugin's run
// is a trace stage ('admission:mutating:<name>' / 'admission:validating:<name>').

import type { KObject } from '../api/object';
import type { UserInfo } from '../registry/resourceDef';
import type { TraceRecorder } from '../server/traceRecorder';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  group: string;
  version: string;
  kind: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  user: UserInfo;
  dryRun: boolean;
  /** The object being written (mutable in the mutating phase); undefined for DELETE. */
  object?: KObject;
  oldObject?: KObject;
  /** The request's warnings (`Warning: 299` headers): PodSecurity warn, policy Warn actions, webhook warnings. */
  warnings: string[];
  /** Audit annotations of this request (`pod-security.kubernetes.io/audit-violations`, `validation.policy.admission.k8s.io/...`). */
  auditAnnotations: Record<string, string>;
}

export interface AdmissionPlugin {
  name: string;
  /** Mutating phase: may change attrs.object; throws a StatusError to reject. */
  admit?(attrs: AdmissionAttributes): Promise<void> | void;
  /** Validating phase: throws a StatusError to reject. */
  validate?(attrs: AdmissionAttributes): Promise<void> | void;
}

export async function runMutating(plugins: AdmissionPlugin[], attrs: AdmissionAttributes, trace: TraceRecorder): Promise<void> {
  for (const p of plugins) {
    if (!p.admit) continue;
    const before = attrs.object ? JSON.stringify(attrs.object) : '';
    await trace.stage(`admission:mutating:${p.name}`, () => p.admit!(attrs), () => (attrs.object && JSON.stringify(attrs.object) !== before ? 'mutate' : 'allow'));
  }
}

export async function runValidating(plugins: AdmissionPlugin[], attrs: AdmissionAttributes, trace: TraceRecorder): Promise<void> {
  for (const p of plugins) {
    if (!p.validate) continue;
    await trace.stage(`admission:validating:${p.name}`, () => p.validate!(attrs), () => 'allow');
  }
}
