// kube's namespace deletion on the server side
// (registry/core/namespace/storage.REST.Delete): the first delete sets
// deletionTimestamp and status.phase Terminating; the object stays (200 with
// it) while spec.finalizers is non-empty. The namespace controller empties it
// through namespaces/<n>/finalize, and the update that leaves both finalizer
// lists empty deletes it. The NamespaceLifecycle admission plugin is
// main/apiserver/admission/namespaceLifecycle.ts.

import type { KObject } from '../../../kube/object';
import type { StageRecorder } from '../../server/traceRecorder';
import { deepCopy, rfc3339 } from './objectMeta';
import { readable } from './readable';
import type { ResourceScope } from './scope';
import { interpretStorageError } from './storageErrors';

export function isNamespaceResource(def: { group: string; resource: string }): boolean {
  return def.group === '' && def.resource === 'namespaces';
}

export function specFinalizers(obj: KObject): string[] {
  const spec = (obj as { spec?: { finalizers?: unknown } }).spec;
  return Array.isArray(spec?.finalizers) ? (spec.finalizers as string[]) : [];
}

/**
 * The namespace part of DELETE: marks the namespace Terminating (once) and
 * answers it while spec.finalizers is non-empty. Returns undefined when the
 * generic delete should go on (no spec finalizers left: metadata.finalizers
 * or the etcd delete decide), with the object as now stored.
 */
export async function markNamespaceTerminating(
  trace: StageRecorder,
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
        ns = await trace.stage('storage', () => scope.storage.guaranteedUpdate(key, undefined, (s) => (s.metadata.deletionTimestamp ? s : mark(s))));
      } catch (err) {
        throw interpretStorageError(err, scope.qr, current.metadata.name ?? '', 'delete');
      }
      trace.storage('terminating', ns.metadata.resourceVersion);
    }
  }
  if (specFinalizers(ns).length > 0) return { pending: readable(scope, ns), current: ns };
  return { current: ns };
}
