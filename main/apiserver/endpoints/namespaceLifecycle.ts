// kube's namespace deletion flow on the server side:
//   - the NamespaceLifecycle admission plugin: no new content in a missing
//     namespace (404 namespaces "x" not found) or in a Terminating one (403
//     with cause NamespaceTerminating), and default / kube-system /
//     kube-public may never be deleted;
//   - namespace DELETE (registry/core/namespace/storage.REST.Delete): the
//     first delete sets deletionTimestamp and status.phase Terminating; the
//     object stays (200 with it) while spec.finalizers is non-empty. The
//     namespace controller empties it through namespaces/<n>/finalize, and
//     the update that leaves both finalizer lists empty deletes it.

import type { KObject } from '../../kube/object';
import { failure, forbidden, notFound } from '../api/status';
import type { RequestContext } from '../server/context';
import { StorageError } from '../storage/interface';
import type { AdmissionPlugin } from './admission';
import { deepCopy, rfc3339 } from './objectMeta';
import { readable } from './readable';
import type { ResourceScope, RestServices } from './scope';
import { interpretStorageError } from './storageErrors';

/** Namespaces the plugin refuses to delete (kube's immortalNamespaces). */
export const IMMORTAL_NAMESPACES = ['default', 'kube-system', 'kube-public'];

export function isNamespaceResource(def: { group: string; resource: string }): boolean {
  return def.group === '' && def.resource === 'namespaces';
}

export function specFinalizers(obj: KObject): string[] {
  const spec = (obj as { spec?: { finalizers?: unknown } }).spec;
  return Array.isArray(spec?.finalizers) ? (spec.finalizers as string[]) : [];
}

function phaseOf(obj: KObject): string {
  const status = (obj as { status?: { phase?: unknown } }).status;
  return typeof status?.phase === 'string' ? status.phase : '';
}

export function namespaceLifecycle(services: Pick<RestServices, 'etcdPrefix' | 'storageFor'>): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    // Rejects only; never changes the object.
    async admit(a) {
      if (a.operation !== 'CREATE' || !a.namespace || (a.group === '' && a.resource === 'namespaces')) return 'unchanged' as const;
      // Access reviews are answered for any namespace, existing or not.
      if (a.group === 'authorization.k8s.io' || a.group === 'authentication.k8s.io') return 'unchanged' as const;
      // As kube's plugin: the namespace from the cache (resourceVersion 0, no etcd round trip);
      // only when the cache does not have it, a live (consistent) lookup — it may be brand new.
      const storage = services.storageFor('namespaces');
      const key = `${services.etcdPrefix}/namespaces/${a.namespace}`;
      let ns: KObject;
      try {
        ns = await storage.get(key, { resourceVersion: '0', shareObject: true });
      } catch (err) {
        if (!(err instanceof StorageError && err.code === 'KeyNotFound')) throw err;
        try {
          ns = await storage.get(key);
        } catch (live) {
          if (live instanceof StorageError && live.code === 'KeyNotFound') throw notFound({ group: '', resource: 'namespaces' }, a.namespace);
          throw live;
        }
      }
      if (phaseOf(ns) !== 'Terminating') return 'unchanged' as const;
      const name = a.name || a.object?.metadata?.name || '';
      const base = forbidden({ group: a.group, resource: a.resource }, name, `unable to create new content in namespace ${a.namespace} because it is being terminated`).status;
      throw failure(403, 'Forbidden', base.message ?? '', {
        ...base.details,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }],
      });
    },
    validate(a) {
      if (a.operation === 'DELETE' && a.group === '' && a.resource === 'namespaces' && IMMORTAL_NAMESPACES.includes(a.name)) {
        throw forbidden({ group: '', resource: 'namespaces' }, a.name, 'this namespace may not be deleted');
      }
    },
  };
}

/**
 * The namespace part of DELETE: marks the namespace Terminating (once) and
 * answers it while spec.finalizers is non-empty. Returns undefined when the
 * generic delete should go on (no spec finalizers left: metadata.finalizers
 * or the etcd delete decide), with the object as now stored.
 */
export async function markNamespaceTerminating(
  ctx: RequestContext,
  scope: ResourceScope,
  key: string,
  current: KObject,
  dryRun: boolean,
): Promise<{ pending?: KObject; current: KObject }> {
  const now = scope.services.now();
  const mark = (stored: KObject): KObject => {
    const obj = deepCopy(stored);
    if (!obj.metadata.deletionTimestamp) obj.metadata.deletionTimestamp = rfc3339(now);
    const status = ((obj as { status?: Record<string, unknown> }).status ??= {});
    status.phase = 'Terminating';
    return obj;
  };
  let ns = current;
  if (!current.metadata.deletionTimestamp) {
    if (dryRun) ns = mark(current);
    else {
      try {
        ns = await ctx.trace.stage('storage', () => scope.storage.guaranteedUpdate(key, undefined, (s) => (s.metadata.deletionTimestamp ? s : mark(s))));
      } catch (err) {
        throw interpretStorageError(err, scope.qr, current.metadata.name ?? '', 'delete');
      }
      ctx.trace.storage('terminating', ns.metadata.resourceVersion);
    }
  }
  if (specFinalizers(ns).length > 0) return { pending: readable(scope, ns), current: ns };
  return { current: ns };
}
