// Listing every resource of a (scratch) API server, as `kubectl api-resources
// --verbs=list -o name | xargs -n1 kubectl get -A` would: discovery of the
// core group (/api/v1) and every group's preferred version (/apis), then a
// paged list (limit 500, continue) of each resource that supports "list".
// The restore drill uses it to prove the API server serves what the
// snapshot holds, not only that /readyz answers.

import type { RestClient } from '../client/kube/rest';

export interface ListedResource {
  /** kubectl's name: "pods", "deployments.apps". */
  name: string;
  /** The list path: /api/v1/pods, /apis/apps/v1/deployments. */
  path: string;
  namespaced: boolean;
  items: number;
}

interface ApiResource {
  name: string;
  namespaced: boolean;
  verbs: string[];
}

const PAGE = 500;

/** Every listable resource's path and kubectl name, by discovery. */
export async function discoverListable(rest: RestClient, signal?: AbortSignal): Promise<Omit<ListedResource, 'items'>[]> {
  const out: Omit<ListedResource, 'items'>[] = [];
  const add = (base: string, group: string, list: ApiResource[]) => {
    for (const r of list) {
      if (r.name.includes('/') || !r.verbs.includes('list')) continue; // subresources, and resources that cannot be listed
      out.push({ name: group === '' ? r.name : `${r.name}.${group}`, path: `${base}/${r.name}`, namespaced: r.namespaced });
    }
  };
  const core = await rest.request<{ resources: ApiResource[] }>('GET', '/api/v1', { signal });
  add('/api/v1', '', core.resources);
  const groups = await rest.request<{ groups: { name: string; preferredVersion: { groupVersion: string } }[] }>('GET', '/apis', { signal });
  for (const g of groups.groups) {
    const base = `/apis/${g.preferredVersion.groupVersion}`;
    const res = await rest.request<{ resources: ApiResource[] }>('GET', base, { signal });
    add(base, g.name, res.resources);
  }
  return out;
}

/** Lists one resource across all namespaces to the end; resolves with its item count. */
export async function countItems(rest: RestClient, path: string, signal?: AbortSignal): Promise<number> {
  let n = 0;
  let cont: string | undefined;
  do {
    const page = await rest.request<{ items?: unknown[]; metadata?: { continue?: string } }>('GET', path, { query: { limit: PAGE, continue: cont }, signal });
    n += page.items?.length ?? 0;
    cont = page.metadata?.continue || undefined;
  } while (cont !== undefined);
  return n;
}

/** Discovery, then a full list of every listable resource; a failing list throws with the resource's name. */
export async function listEveryResource(rest: RestClient, signal?: AbortSignal, onResource?: (r: ListedResource, done: number, total: number) => void): Promise<ListedResource[]> {
  const found = await discoverListable(rest, signal);
  const out: ListedResource[] = [];
  for (const r of found) {
    let items: number;
    try {
      items = await countItems(rest, r.path, signal);
    } catch (err) {
      throw new Error(`listing ${r.name} (GET ${r.path}) failed: ${(err as Error).message}`);
    }
    const listed = { ...r, items };
    out.push(listed);
    onResource?.(listed, out.length, found.length);
  }
  return out;
}
