// A watch served straight from etcd (kube's etcd3 watcher): for RV "" / "0"
// the current state first, as ADDED events from a list, then the changes
// after that list's revision; for RV "N" the changes after N. With
// sendInitialEvents the initial state is followed by a BOOKMARK annotated
// k8s.io/initial-events-end; with allowWatchBookmarks etcd's progress
// notifications become BOOKMARKs. A compacted start revision ends the watch
// with ERROR 410 "The resourceVersion for the provided watch is too old.".
// The watch cache serves most watches; this path is for a store without one.
// There is no per-watcher buffer here: a sink returning false is not retried
// (events arrive at etcd's pace and are handed on as they come).

import { expired, internalError } from '../api/status';
import type { EtcdStore } from './etcdStore';
import type { EtcdWatch } from './etcdWatch';
import { WATCH_EXPIRED_MESSAGE, parseResourceVersion } from './errors';
import type { WatchEvent, WatchOptions, WatchSink, Watcher } from './interface';
import { bookmarkEvent, toWatchEvent } from './watchEvents';

export function startStoreWatch(store: EtcdStore, prefix: string, opts: WatchOptions, sink: WatchSink): Watcher {
  let stopped = false;
  let etcdWatch: EtcdWatch | undefined;
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  const stop = () => {
    if (stopped) return;
    stopped = true;
    etcdWatch?.cancel();
    finish();
  };
  const emit = (e: WatchEvent) => {
    if (!stopped) sink(e);
  };
  const fail = (e: WatchEvent) => {
    emit(e);
    stop();
  };

  const run = async () => {
    const rv = parseResourceVersion(opts.resourceVersion);
    const initial = opts.sendInitialEvents ?? rv === 0n;
    let from = rv + 1n;
    if (initial) {
      const list = prefix.endsWith('/')
        ? await store.getList(prefix, { predicate: opts.predicate, resourceVersion: opts.resourceVersion === '0' ? '' : opts.resourceVersion })
        : await store.getList(prefix.slice(0, prefix.lastIndexOf('/') + 1), { exactKey: prefix, predicate: opts.predicate });
      for (const item of list.items) emit({ type: 'ADDED', object: item });
      const listRV = BigInt(list.resourceVersion);
      if (opts.sendInitialEvents && opts.allowWatchBookmarks) emit(bookmarkEvent(opts.bookmarkType, listRV, true));
      from = listRV + 1n;
    } else if (rv === 0n) {
      from = 0n; // no initial state: changes from now on
    }
    if (stopped) return;
    etcdWatch = store.watchRaw(prefix, from, {
      onEvents: (events) => {
        for (const ev of events) {
          const out = toWatchEvent(ev, opts.predicate);
          if (out) emit(out);
        }
      },
      onProgress: (rev) => {
        if (opts.allowWatchBookmarks) emit(bookmarkEvent(opts.bookmarkType, rev));
      },
      onCompacted: () => fail({ type: 'ERROR', object: expired(WATCH_EXPIRED_MESSAGE).status as unknown as Record<string, unknown> }),
      onError: (err) => fail({ type: 'ERROR', object: internalError(err).status as unknown as Record<string, unknown> }),
    });
  };
  run().catch((err) => fail({ type: 'ERROR', object: internalError(err).status as unknown as Record<string, unknown> }));
  return { stop, done };
}
