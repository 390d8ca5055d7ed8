// etcd's watch metrics (mvcc/metrics.go), under etcd's names, read from the
// watchable store when Prometheus collects.

import { Counter, Gauge, type Registry } from 'prom-client';
import type { WatchableStore } from './watchableStore';

export function registerWatchMetrics(registry: Registry, store: WatchableStore): void {
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge('etcd_debugging_mvcc_watch_stream_total', 'Total number of watch streams.', () => store.stats.streams);
  gauge('etcd_debugging_mvcc_watcher_total', 'Total number of watchers.', () => store.counts.synced + store.counts.unsynced);
  gauge('etcd_debugging_mvcc_slow_watcher_total', 'Total number of unsynced slow watchers.', () => store.counts.unsynced);
  let reported = 0;
  new Counter({
    name: 'etcd_debugging_mvcc_events_total',
    help: 'Total number of events sent by this member.',
    registers: [registry],
    collect() {
      const sent = store.stats.eventsSent;
      if (sent > reported) this.inc(sent - reported);
      reported = sent;
    },
  });
}
