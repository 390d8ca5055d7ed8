// A watch served straight from etcd (kube's etcd3 watcher): for RV "" / "0"
// the current state first, as ADDED events from a list, then the changes
// after that list's revision; for RV "N" the changes after N. With
// sendInitialEvents the initial state is followed by a BOOKMARK annotated
// k8s.io/initial-events-end; with allowWatchBookmarks etcd's progress
// notifications become BOOKMARKs. A compacted start revision ends the watch
// with ERROR 410 "The resourceVersion for the provided watch is too old.".
// The watch cache serves most watches; this path is for a store without one.
// Delivery (predicate, back-pressure, bounded buffer) is the cache's
// CacheWatcher, fed from this watch's own etcd stream.

import { expired, internalError } from '../api/status';
import { WATCHER_BUFFER_SIZE } from './backlogLimit';
import { CacheWatcher } from './cacheWatcher';
import type { RawWatchSource } from './rawWatch';
import type { EtcdWatch } from '../../client/etcd/etcdWatch';
import { WATCH_EXPIRED_MESSAGE, parseResourceVersion } from './errors';
import type { WatchEvent, WatchOptions, WatchSink, Watcher } from './interface';

export function startStoreWatch(store: RawWatchSource, prefix: string, opts: WatchOptions, sink: WatchSink): Watcher {
  let stopped = false;
  let etcdWatch: EtcdWatch | undefined;
  const w = new CacheWatcher(
    sink,
    {
      // etcd already scopes the stream to the prefix (or key).
      scope: () => true,
      predicate: opts.predicate,
      allowBookmarks: opts.allowWatchBookmarks === true,
      bookmarkType: opts.bookmarkType,
      bufferSize: WATCHER_BUFFER_SIZE,
      // Every progress notification is worth a bookmark.
      bookmarkIntervalMs: 0,
      now: Date.now,
    },
    () => {
      stopped = true;
      etcdWatch?.cancel();
    },
  );
  const fail = (err: unknown) => w.fail(internalError(err).status as unknown as Record<string, unknown>);

  const run = async () => {
    const rv = parseResourceVersion(opts.resourceVersion);
    const initial = opts.sendInitialEvents ?? rv === 0n;
    let from = rv + 1n;
    if (initial) {
      const list = prefix.endsWith('/')
        ? await store.getList(prefix, { predicate: opts.predicate, resourceVersion: opts.resourceVersion === '0' ? '' : opts.resourceVersion })
        : await store.getList(prefix.slice(0, prefix.lastIndexOf('/') + 1), { exactKey: prefix, predicate: opts.predicate });
      if (stopped) return;
      const listRV = BigInt(list.resourceVersion);
      w.begin(list.items.map((item): WatchEvent => ({ type: 'ADDED', object: item })), listRV);
      if (opts.sendInitialEvents) w.bookmark(listRV, true);
      from = listRV + 1n;
    } else {
      w.begin([], rv);
      if (rv === 0n) from = 0n; // no initial state: changes from now on
    }
    if (stopped) return;
    etcdWatch = store.watchRaw(prefix, from, {
      onEvents: (events) => {
        for (const ev of events) w.add(ev);
      },
      onProgress: (rev) => w.bookmark(rev),
      onCompacted: () => w.fail(expired(WATCH_EXPIRED_MESSAGE).status as unknown as Record<string, unknown>),
      onError: fail,
    });
  };
  run().catch(fail);
  return w;
}
