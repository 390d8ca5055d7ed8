// Everything the REST handlers need about one served resource and the
// server around it: its ResourceDef, its Storage (the watch cache over the
// etcd store), where its objects live in etcd, and the shared services
// (other resources' storage, allocators, admission plugins, the clock).

import { apiVersionOf } from '../../../kube/object';
import type { QualifiedResource } from '../../api/status';
import type { ResourceDef, ServiceAllocators, StrategyContext } from '../rest/resourceDef';
import type { UserInfo } from '../../authn/user';
import type { Storage } from '../../storage/interface';
import type { AdmissionPlugin } from '../../admission/interfaces';

export interface RestServices {
  /** --etcd-prefix, e.g. '/registry'. */
  etcdPrefix: string;
  storageFor(resource: string, group?: string): Storage;
  allocators?: ServiceAllocators;
  admission: AdmissionPlugin[];
  now(): Date;
}

export interface ResourceScope {
  def: ResourceDef;
  storage: Storage;
  services: RestServices;
  qr: QualifiedResource;
  apiVersion: string;
}

export function scopeFor(def: ResourceDef, storage: Storage, services: RestServices): ResourceScope {
  return { def, storage, services, qr: { group: def.group, resource: def.resource }, apiVersion: apiVersionOf(def) };
}

/** The etcd key of one object: <prefix>/<storagePrefix>/[<namespace>/]<name>. */
export function keyFor(scope: ResourceScope, namespace: string, name: string): string {
  const base = `${scope.services.etcdPrefix}/${scope.def.storagePrefix}`;
  return scope.def.namespaced ? `${base}/${namespace}/${name}` : `${base}/${name}`;
}

/** The prefix a list or watch covers: one namespace, or all of them (namespace ''). */
export function listPrefix(scope: ResourceScope, namespace: string): string {
  const base = `${scope.services.etcdPrefix}/${scope.def.storagePrefix}/`;
  return scope.def.namespaced && namespace ? `${base}${namespace}/` : base;
}

export function strategyContext(scope: ResourceScope, user: UserInfo, namespace: string, dryRun: boolean): StrategyContext {
  const s = scope.services;
  return {
    user,
    namespace: namespace || undefined,
    storageFor: (resource, group) => s.storageFor(resource, group),
    now: () => s.now(),
    dryRun,
    allocators: s.allocators,
  };
}
