// What the API server knows about one resource: names for discovery, where it
// lives in etcd, how to default, prepare and validate it (the strategy), how
// `kubectl get` prints it, which fields selectors may use, and which
// subresources it has. One ResourceDef per resource, built from data, driven
// by one generic lifecycle in the REST handlers (k8s.io/apiserver's
// registry/rest create.go / update.go pattern).

import type { FieldError } from '../api/status';
import type { KObject } from '../api/object';
import type { Storage } from '../storage/interface';

export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** Per-request context handed to strategy hooks. */
export interface StrategyContext {
  user: UserInfo;
  namespace?: string;
  /** The object store of this resource and of others (services reach the IP allocator through it). */
  storageFor(resource: string, group?: string): Storage;
  /** Lets strategies allocate/release cluster-wide ranges (service IPs, node ports). */
  now(): Date;
  dryRun: boolean;
}

export interface Strategy {
  /** Scheme defaulting, as the generated SetDefaults_* do; runs on every decoded request body and every read. */
  defaults(obj: KObject): void;
  /** Clear status, set generation 1, etc. */
  prepareForCreate(obj: KObject, ctx: StrategyContext): void | Promise<void>;
  /** Keep status (main resource) or spec (status subresource), bump generation when spec changed, etc. */
  prepareForUpdate(obj: KObject, old: KObject, ctx: StrategyContext): void | Promise<void>;
  validate(obj: KObject, ctx: StrategyContext): FieldError[];
  validateUpdate(obj: KObject, old: KObject, ctx: StrategyContext): FieldError[];
  /** PUT of a missing object creates it (e.g. leases, endpoints, events). */
  allowCreateOnUpdate: boolean;
  /** PUT without metadata.resourceVersion allowed. */
  allowUnconditionalUpdate: boolean;
  /** After a successful delete (release allocated IPs/ports). */
  afterDelete?(obj: KObject, ctx: StrategyContext): void | Promise<void>;
  /** Graceful deletion (pods): the grace period to use, or undefined for immediate delete. */
  gracePeriodSeconds?(obj: KObject, requested: number | undefined): number | undefined;
}

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string; // 'name' for the Name column, '' otherwise
  description: string;
  priority: number; // 0 = always, 1 = -o wide
}

export interface TableConvertor {
  columns: TableColumn[];
  /** One row's cells, in column order, for this object at time `now`. */
  cells(obj: KObject, now: Date): unknown[];
}

export interface SubresourceDef {
  name: 'status' | 'scale' | 'binding' | string;
  /** The kind the subresource takes and returns (Scale is autoscaling/v1). */
  kind: { group: string; version: string; kind: string };
  verbs: Verb[];
}

export interface ResourceDef {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** Plural, lower case: 'deployments'. */
  resource: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: Verb[];
  /** Key prefix under --etcd-prefix: 'deployments', 'services/specs', 'minions'. */
  storagePrefix: string;
  /** Fully qualified protobuf message of the stored type, e.g. 'k8s.io.api.apps.v1.Deployment'. */
  protoType: string;
  subresources: SubresourceDef[];
  strategy: Strategy;
  table: TableConvertor;
  /** Field-selector values this resource supports (metadata.name/namespace always, plus e.g. spec.nodeName). */
  selectableFields(obj: KObject): Record<string, string>;
  /** etcd lease TTL for new objects (events: --event-ttl). */
  ttlSeconds?(obj: KObject): number | undefined;
}
