// From an etcd change to the kube watch event a selective watcher sees
// (etcd3 watcher.go transform / cacher's cacheWatcher.convertToWatchEvent):
// with a predicate, an update that makes an object match becomes ADDED, one
// that makes it stop matching becomes DELETED (carrying the old object), and
// an update invisible before and after is dropped. That is why every watch
// asks etcd for prev_kv.

import type { KObject } from '../../kube/object';
import type { Predicate, WatchEvent } from './interface';
import { jsonCopy } from '../patch/jsonValue';

/** One decoded etcd change. */
export interface ObjectEvent {
  type: 'PUT' | 'DELETE';
  key: string;
  /** The event's revision (mod_revision of the put, the delete's revision). */
  rev: bigint;
  /** After the change (PUT only); resourceVersion = rev. */
  obj?: KObject;
  /** Before the change, if it existed; resourceVersion = rev (kube stamps the old object with the event's revision). */
  prevObj?: KObject;
  /** Set instead of prevObj when the receiver holds the previous object (etcd sent one: an update or delete). */
  decodePrev?: () => KObject | undefined;
}

const all: Predicate = () => true;

/** The event a watcher with `predicate` sees, or undefined when it sees nothing. */
export function toWatchEvent(ev: ObjectEvent, predicate: Predicate = all): WatchEvent | undefined {
  if (ev.type === 'DELETE') {
    if (ev.prevObj && predicate(ev.prevObj)) return { type: 'DELETED', object: ev.prevObj };
    return undefined;
  }
  const cur = predicate(ev.obj!);
  if (!ev.prevObj) return cur ? { type: 'ADDED', object: ev.obj! } : undefined;
  const old = predicate(ev.prevObj);
  if (cur && old) return { type: 'MODIFIED', object: ev.obj! };
  if (cur) return { type: 'ADDED', object: ev.obj! };
  if (old) return { type: 'DELETED', object: ev.prevObj };
  return undefined;
}

/** A BOOKMARK: only kind, apiVersion and metadata.resourceVersion (+ annotations). */
export function bookmarkEvent(type: { apiVersion: string; kind: string } | undefined, rv: bigint, initialEventsEnd = false): WatchEvent {
  const metadata: Record<string, unknown> = { resourceVersion: rv.toString() };
  if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  return { type: 'BOOKMARK', object: { kind: type?.kind, apiVersion: type?.apiVersion, metadata } };
}

/** A watch event whose object the receiver may change freely. */
export function cloneEvent(e: WatchEvent): WatchEvent {
  return { type: e.type, object: jsonCopy(e.object) };
}
