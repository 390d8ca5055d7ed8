// kube's NamespaceLifecycle admission plugin: no new content in a missing
// namespace (404 namespaces "x" not found) or in a Terminating one (403 with
// cause NamespaceTerminating), and default / kube-system / kube-public may
// never be deleted.

import type { KObject } from '../../kube/object';
import { failure, forbidden, notFound } from '../api/status';
import { StorageError, type Storage } from '../storage/interface';
import type { AdmissionPlugin } from './interfaces';

/** Namespaces the plugin refuses to delete (kube's immortalNamespaces). */
export const IMMORTAL_NAMESPACES = ['default', 'kube-system', 'kube-public'];

/** Where the plugin reads namespaces from. */
export interface NamespaceSource {
  /** --etcd-prefix, e.g. '/registry'. */
  etcdPrefix: string;
  storageFor(resource: string, group?: string): Storage;
}

function phaseOf(obj: KObject): string {
  const status = (obj as { status?: { phase?: unknown } }).status;
  return typeof status?.phase === 'string' ? status.phase : '';
}

export function namespaceLifecycle(services: NamespaceSource): AdmissionPlugin {
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
