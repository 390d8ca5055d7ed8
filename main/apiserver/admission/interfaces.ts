// What an admission plugin is and what it sees (k8s.io/apiserver
// pkg/admission interfaces.go): the request's attributes (operation, object,
// user), the mutating and validating phases, and what a plugin's factory is
// given. The plugins and the chain import these; admission/plugins.ts (the
// registry of plugins) imports the plugins.

import type { KObject } from '../../kube/object';
import type { AdmissionOperation } from '../../kube/admissionOperation';
import type { UserInfo } from '../authn/user';
import type { ServerEnv } from '../serverEnv';

export type { AdmissionOperation } from '../../kube/admissionOperation';

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

export type AdmitResult = void | 'unchanged';

export interface AdmissionPlugin {
  name: string;
  /**
   * Whether the plugin acts on this request at all (kube's Handles(operation)
   * plus the plugin's own resource check). Optional: absent means "maybe",
   * and admit/validate decide themselves. A false answer skips the plugin
   * and, in the mutating phase, the before-copy for the trace's patch.
   */
  handles?(attrs: AdmissionAttributes): boolean;
  /**
   * Mutating phase: may change attrs.object; throws a StatusError to reject.
   * Answering 'unchanged' (the plugin knows it changed nothing) spares the
   * trace's check of the whole object for a patch.
   */
  admit?(attrs: AdmissionAttributes): Promise<AdmitResult> | AdmitResult;
  /** Validating phase: throws a StatusError to reject. */
  validate?(attrs: AdmissionAttributes): Promise<void> | void;
}

/** Legacy per-plugin flags (kube registers DefaultTolerationSeconds' two flags on the server's flag set). */
export interface AdmissionPluginFlags {
  defaultNotReadyTolerationSeconds: number;
  defaultUnreachableTolerationSeconds: number;
}

export const DEFAULT_ADMISSION_PLUGIN_FLAGS: AdmissionPluginFlags = {
  defaultNotReadyTolerationSeconds: 300,
  defaultUnreachableTolerationSeconds: 300,
};

export interface AdmissionPluginContext {
  /** This plugin's configuration from --admission-control-config-file; undefined when none. */
  config: unknown;
  flags: AdmissionPluginFlags;
}

export type AdmissionPluginFactory = (env: ServerEnv, ctx: AdmissionPluginContext) => AdmissionPlugin;
