// The member's Prometheus metrics, with etcd's names so that dashboards and
// `etcdctl check datascale` written for etcd read them unchanged. One
// Registry per member (several members can share a process in tests).

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { BUILD_INFO } from '../../common/version';
import { CLUSTER_VERSION_LABEL, SERVER_VERSION } from '../api/etcdVersion';

export class MemberMetrics {
  readonly registry = new Registry();
  readonly hasLeader = this.gauge('etcd_server_has_leader', 'Whether or not a leader exists. 1 is existence, 0 is not.');
  readonly isLeader = this.gauge('etcd_server_is_leader', 'Whether or not this member is a leader. 1 if is, 0 otherwise.');
  readonly leaderChanges = this.counter('etcd_server_leader_changes_seen_total', 'The number of leader changes seen.');
  readonly proposalsCommitted = this.gauge('etcd_server_proposals_committed_total', 'The total number of consensus proposals committed.');
  readonly proposalsApplied = this.gauge('etcd_server_proposals_applied_total', 'The total number of consensus proposals applied.');
  readonly proposalsPending = this.gauge('etcd_server_proposals_pending', 'The current number of pending proposals to commit.');
  readonly proposalsFailed = this.counter('etcd_server_proposals_failed_total', 'The total number of failed proposals seen.');
  readonly dbTotalSize = this.gauge('etcd_mvcc_db_total_size_in_bytes', 'Total size of the underlying database physically allocated in bytes.');
  readonly walFsyncSeconds = new Histogram({
    name: 'etcd_disk_wal_fsync_duration_seconds',
    help: 'The latency distributions of fsync called by WAL.',
    // etcd: prometheus.ExponentialBuckets(0.001, 2, 14)
    buckets: Array.from({ length: 14 }, (_, i) => 0.001 * 2 ** i),
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // etcd's version gauges (always 1; the labels carry the value), and this build's.
    new Gauge({ name: 'etcd_server_version', help: 'Which version is running. 1 for \'server_version\' label with current version.', labelNames: ['server_version'], registers: [this.registry] }).set({ server_version: SERVER_VERSION }, 1);
    new Gauge({ name: 'etcd_cluster_version', help: 'Which version is running. 1 for \'cluster_version\' label with current cluster version', labelNames: ['cluster_version'], registers: [this.registry] }).set({ cluster_version: CLUSTER_VERSION_LABEL }, 1);
    new Gauge({ name: 'pilothouse_build_info', help: 'The Pilothouse build a member runs. Always 1.', labelNames: ['version', 'commit', 'tree_state', 'build_date'], registers: [this.registry] }).set(
      { version: BUILD_INFO.version, commit: BUILD_INFO.commit, tree_state: BUILD_INFO.treeState, build_date: BUILD_INFO.buildDate },
      1,
    );
  }

  private gauge(name: string, help: string): Gauge {
    return new Gauge({ name, help, registers: [this.registry] });
  }

  private counter(name: string, help: string): Counter {
    return new Counter({ name, help, registers: [this.registry] });
  }
}
