// Watch streaming (k8s.io/apiserver handlers/watch.go): HTTP 200, chunked,
// one compact JSON event per line, written as soon as it happens:
//   {"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":{...}}
// Errors after the stream started (410 Expired for a too-old
// resourceVersion) are an ERROR event carrying the Status, then the end. The
// stream ends at timeoutSeconds (default: random in [1800 s, 3600 s), kube's
// --min-request-timeout rule) or when the client goes away. With a Table
// Accept header each object is a one-row Table; only the first carries
// columnDefinitions. Objects get the same defaults and type meta as reads.
//
// A client that stops reading is not buffered without bound: the response
// takes events only while its socket drains (LineStream); the storage's
// watcher holds the rest in its bounded queue and closes itself when the
// client stays behind (cacheWatcher.ts). The stream then ends cleanly, the
// line kube's cacheWatcher logs is written, and the client re-watches from
// its last resourceVersion (from the cache's window, or 410 and a relist).

import type { KObject } from '../../kube/object';
import type { RequestContext } from '../server/context';
import type { WatchEvent, Watcher } from '../storage/interface';
import type { ParsedListOptions } from './listOptions';
import { negotiateOutput } from './outputFormat';
import { readable } from '../registry/store/readable';
import { listPrefix, type ResourceScope } from '../registry/store/scope';
import { interpretStorageError } from '../registry/store/storageErrors';
import { LineStream } from '../server/lineStream';
import { toStatus } from '../server/responseWriter';
import { parseIncludeObject, partialObjectMetadata, toTable } from './table';
import { jsonCopy } from '../patch/jsonValue';
import { unresponsiveLine } from '../storage/backlogLimit';

export const MIN_REQUEST_TIMEOUT_S = 1800;

export function watchTimeoutMs(requested: number | undefined, random: () => number = Math.random): number {
  if (requested !== undefined && requested > 0) return requested * 1000;
  return Math.floor(MIN_REQUEST_TIMEOUT_S * (1 + random())) * 1000;
}

// An event object's JSON as watchers see it (type meta and defaults set),
// per resource definition and stored object. Stored objects are immutable
// and replaced on every change, so an entry is valid for as long as the
// object lives; the first watcher to send it pays for a copy and one
// stringify, the others reuse the text (kube's cachingObject).
const objectJson = new WeakMap<object, WeakMap<KObject, string>>();

function sharedObjectJson(scope: ResourceScope, stored: KObject): string {
  let perDef = objectJson.get(scope.def);
  if (!perDef) objectJson.set(scope.def, (perDef = new WeakMap()));
  let json = perDef.get(stored);
  if (json === undefined) {
    json = JSON.stringify(readable(scope, jsonCopy(stored)));
    perDef.set(stored, json);
  }
  return json;
}

export async function serveWatch(ctx: RequestContext, scope: ResourceScope, opts: ParsedListOptions): Promise<void> {
  const output = negotiateOutput(ctx.req.headers.accept, true);
  const includeObject = output.kind === 'table' ? parseIncludeObject(ctx.url.searchParams.get('includeObject')) : 'Metadata';
  const res = ctx.res;
  const contentType = output.serialization === 'yaml' ? 'application/yaml;stream=watch' : 'application/json';
  res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', 'Audit-Id': ctx.trace.trace.id, 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  ctx.req.socket.setNoDelay(true);
  ctx.trace.respond(200);
  ctx.trace.storage('watch', opts.resourceVersion);

  const stream = new LineStream(res);
  let sentHeaders = false;
  let ended = false;
  const transform = (ev: WatchEvent): WatchEvent => {
    if (ev.type === 'ERROR' || ev.type === 'BOOKMARK') return ev;
    const obj = readable(scope, ev.object as KObject);
    if (output.kind === 'table') {
      const table = toTable(scope.def, [obj], { resourceVersion: obj.metadata.resourceVersion }, {
        version: output.version,
        includeObject,
        noHeaders: sentHeaders,
        now: scope.services.now(),
      });
      sentHeaders = true;
      return { type: ev.type, object: table };
    }
    if (output.kind === 'partial') return { type: ev.type, object: partialObjectMetadata(obj, output.version) };
    return { type: ev.type, object: obj };
  };
  // Plain JSON (every informer): the cache's own objects, serialized once
  // per object however many watchers get it. Tables and metadata-only views
  // are built per watcher from a copy the storage makes.
  const shared = output.kind === 'object' && output.serialization === 'json';
  const send = (ev: WatchEvent): boolean => {
    if (ended) return true;
    // Refused before it is serialized: a backed-up client costs no work per event.
    if (!stream.ready && ev.type !== 'ERROR') return false;
    let line: string;
    try {
      line =
        shared && ev.type !== 'ERROR' && ev.type !== 'BOOKMARK'
          ? `{"type":${JSON.stringify(ev.type)},"object":${sharedObjectJson(scope, ev.object as KObject)}}`
          : JSON.stringify(transform(ev));
    } catch (err) {
      line = JSON.stringify({ type: 'ERROR', object: toStatus(interpretStorageError(err, scope.qr, '', 'watch')) });
    }
    stream.write(line);
    return true;
  };

  let watcher: Watcher;
  try {
    watcher = scope.storage.watch(
      listPrefix(scope, ctx.info.namespace),
      {
        resourceVersion: opts.resourceVersion,
        sendInitialEvents: opts.sendInitialEvents,
        allowWatchBookmarks: opts.allowWatchBookmarks,
        predicate: opts.predicate,
        bookmarkType: { apiVersion: scope.apiVersion, kind: scope.def.kind },
        shareObjects: shared,
      },
      send,
    );
  } catch (err) {
    send({ type: 'ERROR', object: toStatus(interpretStorageError(err, scope.qr, '', 'watch')) as unknown as Record<string, unknown> });
    ended = true;
    stream.end();
    return;
  }
  stream.onWritable(() => watcher.resume());

  let timer: NodeJS.Timeout | undefined;
  const finished = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, watchTimeoutMs(opts.timeoutSeconds));
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    void watcher.done.then(() => resolve());
  });
  await finished;
  clearTimeout(timer);
  watcher.stop();
  ended = true;
  if (watcher.unresponsive) logLine(`apiserver: ${unresponsiveLine(groupResource(scope), watchIdentifier(listPrefix(scope, ctx.info.namespace), ctx.url.searchParams), watcher.unresponsive.queued, stream.pending)}`);
  stream.end();
}

const logLine = (line: string): void => void process.stderr.write(`${line}\n`);

function groupResource(scope: ResourceScope): string {
  return scope.qr.group ? `${scope.qr.resource}.${scope.qr.group}` : scope.qr.resource;
}

/** kube's identifier of a watch in its log lines (cacher.go): key, label and field selector. */
function watchIdentifier(key: string, query: URLSearchParams): string {
  return `key: ${JSON.stringify(key)}, labels: ${JSON.stringify(query.get('labelSelector') ?? '')}, fields: ${JSON.stringify(query.get('fieldSelector') ?? '')}`;
}
