// The rbac/bootstrap-roles post-start hook (kube's
// pkg/registry/rbac/rest.PolicyData.EnsureRBACPolicy): create every
// bootstrap role and binding that is missing and reconcile the ones that
// exist (reconcile.ts), cluster roles first so bindings never point at
// nothing. Creates go through the normal create lifecycle as
// system:apiserver; updates are read-modify-write on the stored object.
// Failures are retried (the namespaces the Roles live in may still be
// coming up), bounded, then the hook fails and /readyz says so.

import type { KObject } from '../../api/object';
import { StorageError } from '../../storage/interface';
import type { PostStartHook, ServerEnv } from '../../server/serverEnv';
import { RBAC_GROUP } from '../ruleResolver';
import { bootstrapPolicy } from './objects';
import { reconcileBinding, reconcileRole, type ReconcileResult } from './reconcile';

export const BOOTSTRAP_HOOK_NAME = 'rbac/bootstrap-roles';

interface Counts {
  created: number;
  updated: number;
  unchanged: number;
}

async function ensure(env: ServerEnv, resource: string, obj: KObject, reconcile: (existing: KObject, expected: KObject) => ReconcileResult, counts: Counts): Promise<void> {
  const storage = env.storageFor(resource, RBAC_GROUP);
  const key = env.keyFor(resource, RBAC_GROUP, obj.metadata.namespace ?? '', obj.metadata.name!);
  let existing: KObject | undefined;
  try {
    existing = await storage.get(key);
  } catch (err) {
    if (!(err instanceof StorageError && err.code === 'KeyNotFound')) throw err;
  }
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

export async function ensureBootstrapPolicy(env: ServerEnv): Promise<Counts> {
  const p = bootstrapPolicy();
  const counts: Counts = { created: 0, updated: 0, unchanged: 0 };
  for (const o of p.clusterRoles) await ensure(env, 'clusterroles', o, reconcileRole, counts);
  for (const o of p.clusterRoleBindings) await ensure(env, 'clusterrolebindings', o, reconcileBinding, counts);
  for (const o of p.roles) await ensure(env, 'roles', o, reconcileRole, counts);
  for (const o of p.roleBindings) await ensure(env, 'rolebindings', o, reconcileBinding, counts);
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
