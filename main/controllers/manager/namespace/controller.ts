// The namespace controller (kube's pkg/controller/namespace/deletion): a
// namespace being deleted is Terminating; every namespaced resource the API
// server serves (discovery) is deleted in it, and once nothing is left the
// `kubernetes` finalizer is removed through `namespaces/<n>/finalize`, after
// which the API server deletes the namespace.

import { RESOURCES, isNotFound, objectPath, type ControllerContext, type RestClient } from '../../../client/kube';
import { runQueue } from '../common';
import type { KObject } from '../types';

interface Namespace extends KObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: unknown[] };
}

export interface NamespacedResource {
  /** '/api/v1' or '/apis/<group>/<version>' */
  base: string;
  plural: string;
  verbs: string[];
}

interface ApiResourceList {
  groupVersion: string;
  resources: { name: string; namespaced: boolean; verbs: string[] }[];
}

/** Every namespaced top-level resource that can be listed and deleted, from discovery. */
export async function discoverNamespaced(rest: RestClient): Promise<NamespacedResource[]> {
  const bases = ['/api/v1'];
  const groups = await rest.get<{ groups: { preferredVersion: { groupVersion: string }; versions: { groupVersion: string }[] }[] }>('/apis');
  for (const g of groups.groups ?? []) bases.push(`/apis/${g.preferredVersion.groupVersion}`);
  const out: NamespacedResource[] = [];
  for (const base of bases) {
    let list: ApiResourceList;
    try {
      list = await rest.get<ApiResourceList>(base);
    } catch {
      continue; // an unavailable group must not stop the rest (kube records a discovery failure condition)
    }
    for (const r of list.resources ?? []) {
      if (!r.namespaced || r.name.includes('/') || !r.verbs.includes('list') || !r.verbs.includes('delete')) continue;
      out.push({ base, plural: r.name, verbs: r.verbs });
    }
  }
  return out;
}

export function startNamespaceController(ctx: ControllerContext): void {
  const rest = ctx.clients.rest;
  const nsInf = ctx.informers.informer<Namespace>(RESOURCES.namespaces);
  const queue = runQueue(ctx, 'namespace', sync, 2);
  const enqueue = (ns: Namespace): void => {
    if (ns.metadata.deletionTimestamp) queue.add(ns.metadata.name!);
  };
  nsInf.addEventHandler({ add: enqueue, update: (_o, n) => enqueue(n) });

  async function sync(name: string): Promise<void> {
    const ns = nsInf.get(name);
    if (!ns?.metadata.deletionTimestamp) return;
    if (ns.status?.phase !== 'Terminating') {
      try {
        await rest.replace(objectPath(RESOURCES.namespaces, undefined, name, 'status'), { ...ns, status: { ...(ns.status ?? {}), phase: 'Terminating' } });
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
    }
    const remaining = await deleteAllContent(name);
    if (remaining > 0) {
      // Pods terminate gracefully; look again shortly (kube waits an estimate, at least a few seconds).
      queue.addAfter(name, 1000);
      return;
    }
    const finalizers = (ns.spec?.finalizers ?? []).filter((f) => f !== 'kubernetes');
    try {
      await rest.replace(`/api/v1/namespaces/${encodeURIComponent(name)}/finalize`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, resourceVersion: ns.metadata.resourceVersion }, spec: { finalizers } });
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
  }

  /** Deletes what is left; returns how many objects still exist. */
  async function deleteAllContent(ns: string): Promise<number> {
    const resources = await discoverNamespaced(rest);
    let remaining = 0;
    for (const r of resources) {
      const path = `${r.base}/namespaces/${encodeURIComponent(ns)}/${r.plural}`;
      if (r.verbs.includes('deletecollection')) {
        try {
          await rest.delete(path, { kind: 'DeleteOptions', apiVersion: 'v1' });
        } catch (e) {
          if (!isNotFound(e)) ctx.log(`namespace ${ns}: deletecollection ${r.plural}: ${(e as Error).message}`);
        }
      }
      let items: KObject[] = [];
      try {
        items = (await rest.get<{ items?: KObject[] }>(path)).items ?? [];
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
      for (const o of items) {
        if (o.metadata.deletionTimestamp) continue;
        try {
          await rest.delete(`${path}/${encodeURIComponent(o.metadata.name!)}`);
        } catch (e) {
          if (!isNotFound(e)) throw e;
        }
      }
      remaining += items.length;
    }
    return remaining;
  }
}
