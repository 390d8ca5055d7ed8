// Server-side printing: objects → a meta.k8s.io Table with the resource's
// columns (its TableConvertor from the registry). Each row carries the
// object as PartialObjectMetadata (includeObject=Metadata, the default;
// kubectl reads namespace and labels from it), the whole object
// (includeObject=Object) or nothing (None). Watch events after the first
// carry no column definitions (kube's NoHeaders), and kubectl reuses the
// columns it has.

import { badRequest } from '../api/status';
import type { KObject, ListMeta } from '../../kube/object';
import type { ResourceDef } from '../registry/rest/resourceDef';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function parseIncludeObject(v: string | null): IncludeObject {
  if (v === null || v === '') return 'Metadata';
  if (v === 'None' || v === 'Metadata' || v === 'Object') return v;
  throw badRequest(`includeObject: Unsupported value: "${v}": supported values: "Metadata", "None", "Object"`);
}

export interface TableOptions {
  version: 'v1' | 'v1beta1';
  includeObject: IncludeObject;
  noHeaders: boolean;
  now: Date;
}

export function partialObjectMetadata(obj: KObject, version: string): KObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

export function toTable(def: ResourceDef, objs: KObject[], listMeta: ListMeta, opts: TableOptions): Record<string, unknown> {
  const columnDefinitions = opts.noHeaders
    ? null
    : def.table.columns.map((c) => ({ name: c.name, type: c.type, format: c.format, description: c.description, priority: c.priority }));
  const rows = objs.map((o) => {
    const row: Record<string, unknown> = { cells: def.table.cells(o, opts.now) };
    const conditions = def.table.conditions?.(o);
    if (conditions && conditions.length > 0) row.conditions = conditions;
    if (opts.includeObject === 'Metadata') row.object = partialObjectMetadata(o, opts.version);
    else if (opts.includeObject === 'Object') row.object = o;
    return row;
  });
  const metadata: Record<string, unknown> = {};
  if (listMeta.resourceVersion !== undefined) metadata.resourceVersion = listMeta.resourceVersion;
  if (listMeta.continue) metadata.continue = listMeta.continue;
  if (listMeta.remainingItemCount !== undefined) metadata.remainingItemCount = listMeta.remainingItemCount;
  return { kind: 'Table', apiVersion: `meta.k8s.io/${opts.version}`, metadata, columnDefinitions, rows };
}
