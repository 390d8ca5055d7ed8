// The server's pluggable parts, each built from the ServerEnv once storage is
// up: what the flag groups in main/apiserver/options/ fill in and
// startApiServer wires into the handler chain.

import type { ResourceDef } from './registry/rest/resourceDef';
import type { AdmissionPlugin } from './admission/interfaces';
import type { Authenticator } from './authn/authenticator';
import type { Authorizer } from './authz/authorizer';
import type { NamedFilter } from './server/context';
import type { AuditSink } from './server/filters/withAuditHook';
import type { ValueTransformer } from './storage/valueTransformer';
import type { ServerEnv } from './serverEnv';

export type EnvFactory<T> = (env: ServerEnv) => T;

/** Runs once storage is up and before /readyz turns ready; its readyz check is `poststarthook/<name>`. */
export interface PostStartHook {
  name: string;
  run(env: ServerEnv): Promise<void>;
}

/** The pluggable parts of the server, each built from the env once storage is up. */
export interface ServerPlugins {
  /** The authenticators after x509 (tokens, service accounts, anonymous last). */
  authenticators?: EnvFactory<Authenticator[]>;
  /** The authorizer chain (--authorization-mode order); AlwaysAllow when absent. */
  authorizers?: EnvFactory<Authorizer[]>;
  /** Filters between audit and authorization (impersonation), in order. */
  requestFilters?: EnvFactory<NamedFilter[]>;
  /** The full admission chain in kube's order; [NamespaceLifecycle] when absent. */
  admission?: EnvFactory<AdmissionPlugin[]>;
  auditSinks?: EnvFactory<AuditSink>[];
  /** Changes to served resources that need the env (serviceaccounts/token, RBAC escalation checks); each sees every def and returns it (or a changed copy). */
  decorateResources?: EnvFactory<(def: ResourceDef) => ResourceDef>[];
  /** Resources whose definitions need the env (computed reviews). */
  extraResources?: EnvFactory<ResourceDef[]>[];
  /** Encryption at rest, per etcd key. */
  valueTransformer?: EnvFactory<ValueTransformer>;
  postStartHooks?: PostStartHook[];
}
