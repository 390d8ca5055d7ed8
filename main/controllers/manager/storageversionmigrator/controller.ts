// The storage version migrator (kube's pkg/controller/storageversionmigrator,
// --controllers name storage-version-migrator-controller): for each
// StorageVersionMigration not yet Succeeded or Failed, every object of the
// named resource is written back unchanged, so the API server stores it
// again the way it stores objects now — with the current encryption key
// after --encryption-provider-config changed, for one (the etcd store
// rewrites an unchanged object whose stored value it read with any other
// key or in plain text).
//
// One sync, in the order kube's two controllers (resource-version and
// migrator) go through it:
//   1. the resource must be in discovery, else Failed "resource does not exist in discovery";
//   2. status.resourceVersion is set once, from a LIST with limit 1;
//   3. the objects are listed in pages (one consistent snapshot through the
//      continue token) and each is PUT back at the resourceVersion listed;
//      a Conflict means it changed meanwhile, so it was written anew already,
//      and NotFound that it is gone: both count as migrated, as in kube;
//      any other error fails the migration ("migration encountered unhandled error");
//   4. Running carries "migrated N of M objects", written after every page;
//      at the end Succeeded, Running turned False.
// kube rewrites with a server-side apply of {uid, resourceVersion}; a PUT at
// the listed resourceVersion has the same effect here and the same answers
// to a concurrent change.

import { RESOURCES, collectionPath, isConflict, isNotFound, objectPath, type ControllerContext, type ResourceRef, type RestClient } from '../../../client/kube';
import { isFinished, type StorageVersionMigration } from '../../../kube/storageVersionMigration';
import { runQueue } from '../common';
import type { KObject } from '../types';
import { finished, progressMessage, running } from './conditions';

export const CONTROLLER_NAME = 'storage-version-migrator-controller';
/** Objects per LIST page, and so per progress update. */
export const PAGE_SIZE = 100;

interface ObjectList {
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items?: KObject[];
}

interface DiscoveryList {
  resources?: { name: string; namespaced: boolean; kind: string }[];
}

/** The served resource a migration names, from discovery; undefined when it is not served. */
async function servedResource(rest: RestClient, group: string, version: string, resource: string): Promise<ResourceRef | undefined> {
  const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
  let list: DiscoveryList;
  try {
    list = await rest.get<DiscoveryList>(path);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
  const r = list.resources?.find((x) => x.name === resource);
  return r ? { group, version, plural: resource, kind: r.kind, namespaced: r.namespaced } : undefined;
}

/** Writes obj back unchanged; throws only what fails the migration (not Conflict or NotFound). */
async function rewrite(rest: RestClient, ref: ResourceRef, obj: KObject): Promise<void> {
  const body = { ...obj, apiVersion: ref.group ? `${ref.group}/${ref.version}` : ref.version, kind: ref.kind };
  try {
    await rest.replace(objectPath(ref, obj.metadata.namespace, obj.metadata.name!), body);
  } catch (e) {
    if (isConflict(e) || isNotFound(e)) return;
    throw e;
  }
}

export function startStorageVersionMigrator(ctx: ControllerContext): void {
  const rest = ctx.clients.rest;
  const migrations = ctx.informers.informer<StorageVersionMigration>(RESOURCES.storageversionmigrations);
  const queue = runQueue(ctx, CONTROLLER_NAME, sync, 1);
  migrations.addEventHandler({ add: (m) => queue.add(m.metadata.name!), update: (_o, m) => queue.add(m.metadata.name!) });
  /** Migrations this controller finished (by uid): the cache may not show it yet when the key comes round again. */
  const done = new Set<string>();

  const statusPath = (m: StorageVersionMigration): string => objectPath(RESOURCES.storageversionmigrations, undefined, m.metadata.name!, 'status');
  const writeStatus = (m: StorageVersionMigration): Promise<StorageVersionMigration> => rest.replace<StorageVersionMigration>(statusPath(m), m);
  const fail = async (m: StorageVersionMigration, message: string): Promise<void> => {
    await writeStatus(finished(m, 'Failed', message, ctx.clock.now()));
    done.add(m.metadata.uid!);
  };

  async function sync(name: string): Promise<void> {
    const cached = migrations.get(name);
    if (!cached || isFinished(cached) || done.has(cached.metadata.uid!)) return;
    let m: StorageVersionMigration = { ...structuredClone(cached), apiVersion: 'storagemigration.k8s.io/v1alpha1', kind: 'StorageVersionMigration' };
    const gvr = m.spec?.resource ?? {};
    const ref = await servedResource(rest, gvr.group ?? '', gvr.version ?? '', gvr.resource ?? '');
    if (!ref) return fail(m, 'resource does not exist in discovery');
    if (!m.status?.resourceVersion) {
      const latest = await rest.get<ObjectList>(collectionPath(ref), { limit: 1 });
      m = await writeStatus({ ...m, status: { ...m.status, resourceVersion: latest.metadata?.resourceVersion ?? '' } });
    }

    let migrated = 0;
    let total = 0;
    let cont: string | undefined;
    do {
      const page = await rest.get<ObjectList>(collectionPath(ref), { limit: PAGE_SIZE, continue: cont });
      const items = page.items ?? [];
      // The first page fixes the snapshot: its items plus what remains is the whole count.
      if (cont === undefined) {
        total = items.length + (page.metadata?.remainingItemCount ?? 0);
        m = await writeStatus(running(m, progressMessage(0, total), ctx.clock.now()));
      }
      for (const obj of items) {
        try {
          await rewrite(rest, ref, obj);
        } catch (e) {
          ctx.log(`${CONTROLLER_NAME}: ${name}: ${ref.plural} ${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name}: ${(e as Error).message}`);
          return fail(running(m, progressMessage(migrated, total), ctx.clock.now()), 'migration encountered unhandled error');
        }
        migrated++;
      }
      total = Math.max(total, migrated);
      m = await writeStatus(running(m, progressMessage(migrated, total), ctx.clock.now()));
      cont = page.metadata?.continue || undefined;
    } while (cont);

    await writeStatus(finished(m, 'Succeeded', '', ctx.clock.now()));
    done.add(m.metadata.uid!);
    ctx.log(`${CONTROLLER_NAME}: ${name}: migrated ${migrated} ${ref.plural}`);
  }
}
