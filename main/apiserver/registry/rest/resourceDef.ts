// What the API server knows about one resource: names for discovery, where it
// lives in etcd, how to default, prepare and validate it (the strategy), how
// `kubectl get` prints it, which fields selectors may use, and which
// subresources it has. One ResourceDef per resource, built from data, driven
// by one generic lifecycle in the REST handlers (k8s.io/apiserver's
// registry/rest create.go / update.go pattern).

import type { FieldError } from '../../api/status';
import type { KObject } from '../../../kube/object';
import type { Storage } from '../../storage/interface';
import type { UserInfo } from '../../authn/user';

export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

/** Per-request context handed to strategy hooks. */
export interface StrategyContext {
  user: UserInfo;
  namespace?: string;
  /** The object store of this resource and of others (services reach the IP allocator through it). */
  storageFor(resource: string, group?: string): Storage;
  /** Lets strategies allocate/release cluster-wide ranges (service IPs, node ports). */
  now(): Date;
  dryRun: boolean;
  /**
   * Cluster-wide range allocators (service cluster IPs, node ports). The
   * server builds them once with `createServiceAllocators()` from
   * registry/allocator/serviceAllocators.ts and passes the same instance in
   * every context; services cannot be created or updated without them.
   */
  allocators?: ServiceAllocators;
}

/** One bitmap range persisted as a RangeAllocation (kube's ipallocator / portallocator). */
export interface RangeAllocatorApi {
  /** Reserve this exact value; throws kube's ErrAllocated / ErrNotInRange errors (see allocator module). */
  allocate(value: string | number): Promise<void>;
  /** Reserve any free value; throws ErrFull when none is left. */
  allocateNext(): Promise<string | number>;
  /** What allocateNext would return now, reserving nothing (dry run). */
  previewNext?(): Promise<string | number>;
  release(value: string | number): Promise<void>;
  has(value: string | number): Promise<boolean>;
}

export interface ServiceAllocators {
  /** --service-cluster-ip-range, e.g. '10.96.0.0/12'. */
  readonly serviceCIDR: string;
  clusterIPs: RangeAllocatorApi;
  nodePorts: RangeAllocatorApi;
}

/** Undo or keep what a begin hook allocated: the lifecycle calls it once, with true after the etcd write succeeded, false on any failure. */
export type FinishFunc = (success: boolean) => Promise<void>;

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
  /**
   * kube's Store.BeginCreate (services allocate cluster IPs / node ports
   * here). Call after defaults and before prepareForCreate; on a throw
   * (a StatusError) the create fails; otherwise call the returned finish
   * exactly once when the create is over.
   */
  beginCreate?(obj: KObject, ctx: StrategyContext): Promise<FinishFunc>;
  /** kube's Store.BeginUpdate: like beginCreate, inside the update (after prepareForUpdate, before validateUpdate). */
  beginUpdate?(obj: KObject, old: KObject, ctx: StrategyContext): Promise<FinishFunc>;
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
  /** One row's cells, in column order (wide columns included, as kube's server-side printer runs with Wide), for this object at time `now`. */
  cells(obj: KObject, now: Date): unknown[];
  /** The row's `conditions` (pods: Completed=True once Succeeded/Failed), when the printer sets any. */
  conditions?(obj: KObject): { type: string; status: string; reason?: string; message?: string }[] | undefined;
}

export interface SubresourceDef {
  name: 'status' | 'scale' | 'binding' | string;
  /** The kind the subresource takes and returns (Scale is autoscaling/v1). */
  kind: { group: string; version: string; kind: string };
  verbs: Verb[];
}

/** The /scale subresource (autoscaling/v1 Scale). */
export interface ScaleDef {
  /** The Scale view of obj: metadata (name, namespace, uid, resourceVersion, creationTimestamp), spec.replicas, status.replicas, status.selector as a label-selector string. */
  toScale(obj: KObject): KObject;
  /** Validate the incoming Scale (throws kube's 422 Scale.autoscaling invalid) and copy spec.replicas into obj (mutates obj). */
  applyScale(obj: KObject, scale: KObject): void;
}

/** POST pods/NAME/binding. */
export interface BindingDef {
  /**
   * Check the Binding (name matches, target kind Node) and assign the pod
   * (mutates pod: spec.nodeName, annotations, PodScheduled condition).
   * Throws kube's errors: 409 `pod x is already assigned to node "n"`,
   * `pod x is being deleted, cannot be assigned to a host`, 400s for a bad
   * body. Run it inside guaranteedUpdate on the pod's key; answer 201 Status Success.
   */
  bind(pod: KObject, binding: KObject): void;
}

/** What a computed (not stored) create sees of its request. */
export interface ComputedRequest {
  user: UserInfo;
  /** The request's namespace ('' for cluster-scoped). */
  namespace: string;
  /** The parent object's name for a subresource create (serviceaccounts/NAME/token). */
  name: string;
  dryRun: boolean;
  /** Texts for `Warning: 299` headers. */
  warnings: string[];
  /** The request's audit annotations (TokenRequest records the issued credential id). */
  auditAnnotations?: Record<string, string>;
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
  /** Strategy for PUT/PATCH of NAME/status (spec and most metadata keep their stored values). */
  statusStrategy?: Strategy;
  /** Strategies for PUT of other subresources (namespaces/NAME/finalize). */
  subresourceStrategies?: Record<string, Strategy>;
  scale?: ScaleDef;
  binding?: BindingDef;
  /**
   * A create-only resource that is computed, never stored (TokenReview,
   * SubjectAccessReview, SelfSubjectRulesReview): POST decodes the body as
   * this kind, calls this and answers 201 with what it returns. No watch
   * cache, no etcd key; `verbs` should be ['create'].
   */
  virtualCreate?(obj: KObject, req: ComputedRequest): Promise<KObject>;
  /**
   * POST NAME/<subresource> answered by computation over the stored parent
   * (serviceaccounts/NAME/token → TokenRequest). The body is decoded as the
   * SubresourceDef's kind; the parent is read from storage (404 when missing).
   */
  subresourceCreate?: Record<string, (parent: KObject, body: KObject, req: ComputedRequest) => Promise<KObject>>;
}
