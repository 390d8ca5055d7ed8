// What the server's pluggable parts (authenticators, authorizers, admission
// plugins, audit sinks, computed resources, post-start hooks; serverPlugins.ts)
// may use of the running server. They are built from factories once the
// storage exists, so a plugin reads the live objects it depends on (roles
// for RBAC, service accounts for token checks, LimitRanges for LimitRanger)
// from the same watch caches the REST handlers serve, never from etcd
// directly.

import type { KObject } from '../kube/object';
import type { ResourceDef } from './registry/rest/resourceDef';
import type { Storage } from './storage/interface';
import type { AuthorizationAttributes, Decision } from './authz/authorizer';

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
