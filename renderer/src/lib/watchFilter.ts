// The watch-event view's filter: resource, namespace, type, name and key
// prefix, all optional and combined with AND. Name matches as a substring
// (operators type part of a name); the others match exactly.

import type { WatchEventRecord } from '../../../preload/contract';

export interface WatchFilter {
  resource: string;
  namespace: string;
  type: string;
  name: string;
  keyPrefix: string;
}

export function emptyWatchFilter(): WatchFilter {
  return { resource: '', namespace: '', type: '', name: '', keyPrefix: '' };
}

export function isFilterEmpty(f: WatchFilter): boolean {
  return !f.resource && !f.namespace && !f.type && !f.name && !f.keyPrefix;
}

export function matchesWatchFilter(e: WatchEventRecord, f: WatchFilter): boolean {
  if (f.resource && e.resource !== f.resource) return false;
  if (f.namespace && e.namespace !== f.namespace) return false;
  if (f.type && e.type !== f.type) return false;
  if (f.name && !(e.name ?? '').includes(f.name)) return false;
  if (f.keyPrefix && !e.key.startsWith(f.keyPrefix)) return false;
  return true;
}
