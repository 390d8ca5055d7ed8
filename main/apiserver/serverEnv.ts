// What the server's pluggable parts (authenticators, authorizers, admission
// plugins, audit sinks, computed resources, post-start hooks) may use of the
// running server. They are built from factories once the storage exists, so
// a plugin reads the live objects it depends on (roles for RBAC, service
// accounts for token checks, LimitRanges for LimitRanger) from the same watch
// caches the REST handlers serve, never from etcd directly.

import type { KObject } from '../kube/object';
import type { ResourceDef } from './registry/resourceDef';
import type { Storage } from './storage/interface';
import type { AdmissionPlugin } from './endpoints/admission';
import type { Authenticator } from './server/authenticator';
import type { AuthorizationAttributes, Authorizer, Decision } from './server/authorizer';
import type { NamedFilter } from './server/context';
import type { AuditSink } from './server/filters/withAuditHook';
import type { ValueTransformer } from './storage/valueTransformer';

export interface ServerEnv {
  /** --etcd-prefix without a trailing slash, e.g. '/registry'. */
  etcdPrefix: string;
  /** The watch cache of a served resource (or the raw etcd store for anything else). */
  storageFor(resource: string, group?: string): Storage;
  /** The etcd key of one object of a served resource: <prefix>/<storagePrefix>/[<ns>/]<name>. */
  keyFor(resource: string, group: string, namespace: string, name: string): string;
  /** Every served resource, computed ones included. */
  resources(): ResourceDef[];
  /** The server's authorizer chain, as the authorization filter runs it (SubjectAccessReview, impersonation, escalation checks). */
  authorize(attrs: AuthorizationAttributes): Promise<{ decision: Decision; reason?: string }>;
  /**
   * Creates an object as system:apiserver through the whole create lifecycle
   * (defaults, system fields, validation, admission); a StatusError on
   * failure (409 AlreadyExists when it exists).
   */
  createObject(obj: KObject): Promise<KObject>;
  now(): Date;
  log(line: string): void;
}

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
