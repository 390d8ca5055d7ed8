// The rbac/bootstrap-roles post-start hook (kube's
// pkg/registry/rbac/rest.PolicyData.EnsureRBACPolicy): create every
// bootstrap role and binding that is missing and reconcile the ones that
// exist (reconcile.ts), cluster roles first so bindings never point at
// nothing. Creates go through the normal create lifecycle as
// system:apiserver; updates are read-modify-write on the stored object.
// Failures are retried (the namespaces the Roles live in may still be
// coming up), bounded, then the hook fails and /readyz says so.

import type { KObject } from '../../../kube/object';
import type { ServerEnv } from '../../serverEnv';
import type { PostStartHook } from '../../serverPlugins';
import { prefixOf } from '../policyCache';
import { RBAC_GROUP } from '../ruleResolver';
import { bootstrapPolicy } from './objects';
import { reconcileBinding, reconcileRole, type ReconcileResult } from './reconcile';

export const BOOTSTRAP_HOOK_NAME = 'rbac/bootstrap-roles';

interface Counts {
  created: number;
  updated: number;
  unchanged: number;
}

async function ensure(env: ServerEnv, resource: string, obj: KObject, existing: KObject | undefined, reconcile: (existing: KObject, expected: KObject) => ReconcileResult, counts: Counts): Promise<void> {
  const storage = env.storageFor(resource, RBAC_GROUP);
  const key = env.keyFor(resource, RBAC_GROUP, obj.metadata.namespace ?? '', obj.metadata.name!);
  if (!existing) {
    try {
      await env.createObject(structuredClone(obj));
      counts.created++;
    } catch (err) {
      if ((err as { code?: number }).code !== 409) throw err;
      counts.unchanged++; // someone else made it in between: next start reconciles it
    }
    return;
  }
  const r = reconcile(existing, obj);
  if (r.op === 'none') {
    counts.unchanged++;
    return;
  }
  if (r.op === 'recreate') {
    await storage.delete(key, { uid: existing.metadata.uid });
    await env.createObject(structuredClone(obj));
    counts.updated++;
    return;
  }
  await storage.guaranteedUpdate(key, { uid: existing.metadata.uid }, (current) => {
    const again = reconcile(current, obj);
    return again.op === 'update' ? again.obj : current;
  });
  counts.updated++;
}

/**
 * Runs fn over items, at most `limit` at a time. Each create is an etcd
 * quorum write: one after another, the ~120 of a first start took most of a
 * second; in flight together, Raft persists and commits them in a few batches.
 */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

async function ensureAll(env: ServerEnv, resource: string, objs: KObject[], reconcile: (existing: KObject, expected: KObject) => ReconcileResult, counts: Counts): Promise<void> {
  // One consistent list instead of a read per object.
  const listed = await env.storageFor(resource, RBAC_GROUP).getList(prefixOf(env, resource, RBAC_GROUP));
  const existing = new Map(listed.items.map((o) => [`${o.metadata.namespace ?? ''}/${o.metadata.name}`, o]));
  await eachLimited(objs, 64, (o) => ensure(env, resource, o, existing.get(`${o.metadata.namespace ?? ''}/${o.metadata.name}`), reconcile, counts));
}

export async function ensureBootstrapPolicy(env: ServerEnv): Promise<Counts> {
  const p = bootstrapPolicy();
  const counts: Counts = { created: 0, updated: 0, unchanged: 0 };
  // Roles before the bindings that name them.
  await Promise.all([ensureAll(env, 'clusterroles', p.clusterRoles, reconcileRole, counts), ensureAll(env, 'roles', p.roles, reconcileRole, counts)]);
  await Promise.all([
    ensureAll(env, 'clusterrolebindings', p.clusterRoleBindings, reconcileBinding, counts),
    ensureAll(env, 'rolebindings', p.roleBindings, reconcileBinding, counts),
  ]);
  return counts;
}

export function bootstrapRolesHook(opts: { attempts?: number; retryMs?: number } = {}): PostStartHook {
  return {
    name: BOOTSTRAP_HOOK_NAME,
    async run(env) {
      const attempts = opts.attempts ?? 30;
      let last: unknown;
      for (let i = 0; i < attempts; i++) {
        try {
          const c = await ensureBootstrapPolicy(env);
          env.log(`rbac: bootstrap policy: ${c.created} created, ${c.updated} reconciled, ${c.unchanged} unchanged`);
          return;
        } catch (err) {
          last = err;
          env.log(`rbac: bootstrap policy attempt ${i + 1} failed: ${err instanceof Error ? err.message : String(err)}`);
          await new Promise((r) => setTimeout(r, opts.retryMs ?? 1000));
        }
      }
      throw last instanceof Error ? last : new Error(String(last));
    },
  };
}
