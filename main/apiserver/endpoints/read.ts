// GET of one object and of a collection (k8s.io/apiserver handlers/get.go):
// storage reads with kube's resourceVersion semantics (the watch cache
// decides where each read is served from), scheme defaulting on the way out,
// then the form the client asked for: the object/list, a Table, or metadata only.

import type { KObject } from '../../kube/object';
import type { RequestContext } from '../server/context';
import { encodeBody, writeParts, writeRaw } from '../server/responseWriter';
import { keyFor, listPrefix, type ResourceScope } from '../registry/store/scope';
import { parseListOptions, type ParsedListOptions } from './listOptions';
import { stripTypeMeta } from '../registry/store/objectMeta';
import { readable } from '../registry/store/readable';
import { negotiateOutput, outputContentType, type OutputKind } from './outputFormat';
import { storageCall } from '../registry/store/storageErrors';
import { parseIncludeObject, partialObjectMetadata, toTable } from './table';
import { serveWatch } from './watch';
import { jsonCopy } from '../patch/jsonValue';

export async function getObject(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const { namespace, name } = ctx.info;
  const output = negotiateOutput(ctx.req.headers.accept, false);
  const rv = ctx.url.searchParams.get('resourceVersion') ?? undefined;
  const obj = await ctx.trace.stage('storage', () =>
    storageCall(scope.qr, name, 'get', () => scope.storage.get(keyFor(scope, namespace, name), { resourceVersion: rv || undefined })),
  );
  const out = readable(scope, obj);
  ctx.trace.storage('read', out.metadata.resourceVersion);
  writeOutput(ctx, scope, output, 200, [out], { resourceVersion: out.metadata.resourceVersion }, false);
}

export async function listObjects(ctx: RequestContext, scope: ResourceScope): Promise<void> {
  const opts = parseListOptions(scope.def, ctx.url.searchParams);
  if (opts.watch) {
    await serveWatch(ctx, scope, opts);
    return;
  }
  const output = negotiateOutput(ctx.req.headers.accept, true);
  // A plain JSON list only reads the stored objects (each item's JSON is cached), so the cache need not copy them.
  const plainJson = output.kind === 'object' && output.serialization === 'json';
  const result = await ctx.trace.stage('storage', () =>
    storageCall(scope.qr, '', 'list', () =>
      scope.storage.getList(listPrefix(scope, ctx.info.namespace), { ...storageListOptions(scope, ctx.info.namespace, opts), shareItems: plainJson }),
    ),
  );
  ctx.trace.storage('read', result.resourceVersion);
  const meta = { resourceVersion: result.resourceVersion, continue: result.continue, remainingItemCount: result.remainingItemCount };
  if (plainJson) {
    writeParts(ctx, 200, outputContentType(output), plainJsonList(scope, result.items, meta));
    return;
  }
  const items = result.items.map((o) => readable(scope, o));
  writeOutput(ctx, scope, output, 200, items, meta, true);
}

// Each stored object's JSON (UTF-8) as a list item (defaulted, without type
// meta), per resource definition: stored objects are immutable and replaced on
// every change, so a list re-serializes only what changed since the last list,
// and the body is one memcpy of cached bytes instead of a 10 MB string encode.
const itemJsonCache = new WeakMap<object, WeakMap<KObject, Buffer>>();
const COMMA = Buffer.from(',');

// A create's response is the stored revision decoded and defaulted — exactly
// what a later list shows for it — so its item JSON is kept here by
// `namespace/name@resourceVersion` until the watch cache's copy of that
// revision is first listed (kube's cachingObject shares one serialization the
// same way). Without it the first list after a burst of writes serializes
// every new object (10,000 pods: over a second). Bounded; oldest dropped first.
const pendingItemJson = new WeakMap<object, Map<string, Buffer>>();
const PENDING_MAX = 10_000;

function revisionKey(obj: KObject): string | undefined {
  const rv = obj.metadata?.resourceVersion;
  return rv ? `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}@${rv}` : undefined;
}

/** After a write: `out` (readable(), as sent to the client) is what lists will show for its stored revision. */
export function rememberItemJson(scope: ResourceScope, out: KObject, json = JSON.stringify(stripTypeMeta(out))): void {
  const key = revisionKey(out);
  if (key === undefined) return;
  let pending = pendingItemJson.get(scope.def);
  if (!pending) pendingItemJson.set(scope.def, (pending = new Map()));
  if (pending.size >= PENDING_MAX) pending.delete(pending.keys().next().value!);
  pending.set(key, Buffer.from(json));
}

/**
 * A create's 201: writeOutput's response, and rememberItemJson's item JSON
 * from one serialization when the answer is plain JSON — the object decoded
 * from storage has kind and apiVersion as its first keys, so its JSON is the
 * item's JSON with those two in front.
 */
export function writeCreated(ctx: RequestContext, scope: ResourceScope, output: OutputKind, created: KObject): void {
  const first = Object.keys(created).slice(0, 2);
  const typeFirst = first[0] === 'kind' && first[1] === 'apiVersion' && typeof created.kind === 'string' && typeof created.apiVersion === 'string';
  if (output.kind !== 'object' || output.serialization !== 'json' || !typeFirst) {
    writeOutput(ctx, scope, output, 201, [created], {}, false);
    rememberItemJson(scope, created);
    return;
  }
  const item = JSON.stringify(stripTypeMeta(created));
  const head = `{"kind":${JSON.stringify(created.kind)},"apiVersion":${JSON.stringify(created.apiVersion)}`;
  writeRaw(ctx, 201, outputContentType(output), `${head}${item.length > 2 ? ',' : ''}${item.slice(1)}\n`);
  rememberItemJson(scope, created, item);
}

function itemJson(scope: ResourceScope, obj: KObject): Buffer {
  let perDef = itemJsonCache.get(scope.def);
  if (!perDef) itemJsonCache.set(scope.def, (perDef = new WeakMap()));
  let json = perDef.get(obj);
  if (json === undefined) {
    const pending = pendingItemJson.get(scope.def);
    const key = pending && pending.size > 0 ? revisionKey(obj) : undefined;
    json = key !== undefined ? pending!.get(key) : undefined;
    if (json !== undefined) pending!.delete(key!);
    else json = Buffer.from(JSON.stringify(stripTypeMeta(readable(scope, jsonCopy(obj)))));
    perDef.set(obj, json);
  }
  return json;
}

/** Byte-for-byte what encodeBody gives for the list object writeOutput builds, as parts: cached item JSON between the list's head and tail. */
function plainJsonList(scope: ResourceScope, stored: KObject[], meta: ListMetaOut): Buffer[] {
  const head = JSON.stringify({ kind: scope.def.listKind, apiVersion: scope.apiVersion, metadata: listMeta(meta) });
  const parts: Buffer[] = [Buffer.from(`${head.slice(0, -1)},"items":[`)];
  stored.forEach((o, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(itemJson(scope, o));
  });
  parts.push(Buffer.from(']}\n'));
  return parts;
}

export function storageListOptions(scope: ResourceScope, namespace: string, opts: ParsedListOptions) {
  const exactKey = opts.exactName !== undefined && (namespace || !scope.def.namespaced) ? keyFor(scope, namespace, opts.exactName) : undefined;
  return {
    resourceVersion: opts.resourceVersion,
    resourceVersionMatch: opts.resourceVersionMatch,
    limit: opts.limit,
    continue: opts.continue,
    predicate: opts.predicate,
    exactKey,
  };
}

interface ListMetaOut {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export function writeOutput(ctx: RequestContext, scope: ResourceScope, output: OutputKind, code: number, items: KObject[], meta: ListMetaOut, isList: boolean): void {
  let body: unknown;
  if (output.kind === 'table') {
    const includeObject = parseIncludeObject(ctx.url.searchParams.get('includeObject'));
    body = toTable(scope.def, items, meta, { version: output.version, includeObject, noHeaders: false, now: scope.services.now() });
  } else if (output.kind === 'partial') {
    body = isList
      ? { kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${output.version}`, metadata: listMeta(meta), items: items.map((o) => partialObjectMetadata(o, output.version)) }
      : partialObjectMetadata(items[0]!, output.version);
  } else {
    body = isList ? { kind: scope.def.listKind, apiVersion: scope.apiVersion, metadata: listMeta(meta), items: items.map(stripTypeMeta) } : items[0];
  }
  writeRaw(ctx, code, outputContentType(output), encodeBody(body, output.serialization));
}

function listMeta(meta: ListMetaOut): Record<string, unknown> {
  const m: Record<string, unknown> = { resourceVersion: meta.resourceVersion };
  if (meta.continue) m.continue = meta.continue;
  if (meta.remainingItemCount !== undefined) m.remainingItemCount = meta.remainingItemCount;
  return m;
}
