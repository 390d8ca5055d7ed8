// The RBAC objects the authorizer reads: Roles, ClusterRoles, RoleBindings
// and ClusterRoleBindings mirrored from their watch caches (watchMirror.ts)
// as compact entries, with RoleBindings grouped by namespace. Implements the
// resolver's PolicyLister.

import type { KObject } from '../../kube/object';
import type { ServerEnv } from '../serverEnv';
import { normalizeRule } from './policyRule';
import { RBAC_GROUP, type BindingEntry, type PolicyLister, type RoleEntry, type Subject } from './ruleResolver';
import { WatchMirror } from './watchMirror';

export function roleEntry(obj: KObject): RoleEntry {
  const rules = Array.isArray(obj.rules) ? (obj.rules as unknown[]).map(normalizeRule) : [];
  return { namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '', rules };
}

export function bindingEntry(obj: KObject): BindingEntry {
  const ref = (obj.roleRef ?? {}) as Record<string, unknown>;
  const subjects = Array.isArray(obj.subjects) ? (obj.subjects as Record<string, unknown>[]) : [];
  return {
    namespace: obj.metadata?.namespace ?? '',
    name: obj.metadata?.name ?? '',
    roleRef: { kind: String(ref.kind ?? ''), name: String(ref.name ?? ''), apiGroup: String(ref.apiGroup ?? '') },
    subjects: subjects.map((s): Subject => ({ kind: String(s.kind ?? ''), name: String(s.name ?? ''), namespace: s.namespace ? String(s.namespace) : undefined, apiGroup: s.apiGroup ? String(s.apiGroup) : undefined })),
  };
}

/** The etcd prefix of a served resource ('<prefix>/<storagePrefix>/'), or kube's default layout when it is not served. */
export function prefixOf(env: ServerEnv, resource: string, group: string): string {
  const def = env.resources().find((d) => d.resource === resource && d.group === group);
  return `${env.etcdPrefix}/${def?.storagePrefix ?? resource}/`;
}

export class PolicyCache implements PolicyLister {
  readonly roles: WatchMirror<RoleEntry>;
  readonly clusterRoles: WatchMirror<RoleEntry>;
  readonly bindings: WatchMirror<BindingEntry>;
  readonly clusterBindings: WatchMirror<BindingEntry>;
  private byNamespace = new Map<string, BindingEntry[]>();
  private byNamespaceGen = -1;
  private clusterBindingList: BindingEntry[] = [];
  private clusterBindingGen = -1;

  constructor(env: ServerEnv) {
    const mirror = <T>(resource: string, toEntry: (o: KObject) => T) =>
      new WatchMirror<T>({ storage: () => env.storageFor(resource, RBAC_GROUP), prefix: prefixOf(env, resource, RBAC_GROUP), toEntry, log: env.log });
    this.roles = mirror('roles', roleEntry);
    this.clusterRoles = mirror('clusterroles', roleEntry);
    this.bindings = mirror('rolebindings', bindingEntry);
    this.clusterBindings = mirror('clusterrolebindings', bindingEntry);
  }

  async ready(): Promise<void> {
    await Promise.all([this.roles.ready(), this.clusterRoles.ready(), this.bindings.ready(), this.clusterBindings.ready()]);
  }

  getRole(namespace: string, name: string): RoleEntry | undefined {
    return namespace ? this.roles.get(namespace, name) : undefined;
  }

  getClusterRole(name: string): RoleEntry | undefined {
    return this.clusterRoles.get('', name);
  }

  roleBindings(namespace: string): Iterable<BindingEntry> {
    if (this.byNamespaceGen !== this.bindings.generation) {
      const m = new Map<string, BindingEntry[]>();
      for (const b of this.bindings.values()) {
        const list = m.get(b.namespace);
        if (list) list.push(b);
        else m.set(b.namespace, [b]);
      }
      this.byNamespace = m;
      this.byNamespaceGen = this.bindings.generation;
    }
    return this.byNamespace.get(namespace) ?? [];
  }

  clusterRoleBindings(): Iterable<BindingEntry> {
    if (this.clusterBindingGen !== this.clusterBindings.generation) {
      this.clusterBindingList = [...this.clusterBindings.values()];
      this.clusterBindingGen = this.clusterBindings.generation;
    }
    return this.clusterBindingList;
  }

  close(): void {
    for (const m of [this.roles, this.clusterRoles, this.bindings, this.clusterBindings]) m.close();
  }
}
