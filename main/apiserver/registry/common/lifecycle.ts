// The metadata handling every strategy shares: what k8s.io/apiserver's
// rest.BeforeCreate / rest.BeforeUpdate do around a strategy's own
// PrepareForCreate / PrepareForUpdate (system fields, generateName, fields an
// update can never change), and the main-resource / status-subresource split
// of spec and status.

import { randomUUID } from 'node:crypto';
import type { KObject } from '../../../kube/object';
import { deepEqual } from '../../api/validation/field';
import type { StrategyContext } from '../rest/resourceDef';
import { clone, rfc3339 } from './obj';
import { generateName } from './generateName';

export interface CreateOptions {
  namespaced: boolean;
  /** Types whose spec changes are tracked (deployments, replicasets): metadata.generation starts at 1. */
  generation: boolean;
  /** Drop status on create (kube does for most types with a status subresource). */
  clearStatus: boolean;
}

/** rest.BeforeCreate's generic part plus the usual PrepareForCreate. */
export function prepareMetaForCreate(obj: KObject, ctx: StrategyContext, opts: CreateOptions): void {
  const meta = obj.metadata ?? (obj.metadata = {});
  if (!opts.namespaced) delete meta.namespace;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  meta.uid = randomUUID();
  meta.creationTimestamp = rfc3339(ctx.now());
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
  if (opts.generation) meta.generation = 1;
  else delete meta.generation;
  if (opts.clearStatus) delete obj.status;
}

/** rest.BeforeUpdate's generic part: generation, uid, creationTimestamp and deletion fields come from the stored object. */
export function keepSystemMeta(obj: KObject, old: KObject): void {
  const meta = obj.metadata ?? (obj.metadata = {});
  const o = old.metadata;
  if (o.generation !== undefined) meta.generation = o.generation;
  else delete meta.generation;
  if (!meta.uid) meta.uid = o.uid;
  if (o.creationTimestamp) meta.creationTimestamp = o.creationTimestamp;
  if (o.deletionTimestamp) meta.deletionTimestamp = o.deletionTimestamp;
  if (o.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
}

/** Main-resource update: status is the status subresource's; a spec change bumps generation. */
export function prepareMainUpdate(obj: KObject, old: KObject, tracksGeneration: boolean): void {
  keepSystemMeta(obj, old);
  if (old.status === undefined) delete obj.status;
  else obj.status = clone(old.status);
  if (tracksGeneration && !deepEqual(obj.spec, old.spec)) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
}

/** Status-subresource update: spec and labels keep their stored values (and, for some types, more). */
export function prepareStatusUpdate(obj: KObject, old: KObject, keepMeta: ('labels' | 'annotations' | 'ownerReferences' | 'finalizers')[] = []): void {
  keepSystemMeta(obj, old);
  if (old.spec === undefined) delete obj.spec;
  else obj.spec = clone(old.spec);
  for (const k of keepMeta) {
    if (old.metadata[k] === undefined) delete obj.metadata[k];
    else (obj.metadata as Record<string, unknown>)[k] = clone(old.metadata[k]);
  }
}
