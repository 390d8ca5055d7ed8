// The member's configuration: etcd's flags, parsed (main/cmd/etcdFlags.ts
// parses them; startMember.ts boots a member from them).

import type { AutoCompactionConfig } from './autoCompactor';
import type { TlsFiles } from './tlsFiles';

/** etcd's flags, with etcd's defaults applied by the command-line parser. */
export interface MemberConfig {
  name: string;
  dataDir: string;
  listenClientUrls: string[];
  advertiseClientUrls: string[];
  listenPeerUrls: string[];
  initialAdvertisePeerUrls: string[];
  /** name → peer URLs, from --initial-cluster "m1=http://...,m2=http://...". */
  initialCluster: Map<string, string[]>;
  initialClusterState: 'new' | 'existing';
  initialClusterToken: string;
  /** Milliseconds (etcd default 100). */
  heartbeatInterval: number;
  /** Milliseconds (etcd default 1000). */
  electionTimeout: number;
  /** Applied entries between snapshots (etcd default 100000). */
  snapshotCount: number;
  /**
   * Log entries kept behind a snapshot for slow followers (etcd's
   * SnapshotCatchUpEntries, 5000; not a flag). Tests lower it to force
   * catch-up by snapshot.
   */
  snapshotCatchUpEntries?: number;
  /** Bytes (etcd default 2 GiB; 0 means default). */
  quotaBackendBytes: number;
  /** Bytes (etcd default 1.5 MiB). */
  maxRequestBytes: number;
  /** etcd default 128. */
  maxTxnOps: number;
  /** Optional: log lines go here (default stderr). */
  logger?: (line: string) => void;
  /**
   * Milliseconds between progress notifications to progress_notify watchers
   * (--experimental-watch-progress-notify-interval, etcd default 10 min).
   */
  watchProgressNotifyInterval?: number;
  /** --cors (etcd default "*"): origins allowed on the client port's HTTP endpoints; absent: ["*"]. */
  cors?: string[];
  /** --strict-reconfig-check (etcd default true): refuse membership changes that would risk the quorum. */
  strictReconfigCheck?: boolean;
  /** --cert-file, --key-file, --trusted-ca-file, --client-cert-auth; absent: no client TLS. */
  clientTls?: TlsFiles;
  /** --peer-cert-file, --peer-key-file, --peer-trusted-ca-file, --peer-client-cert-auth; absent: no peer TLS. */
  peerTls?: TlsFiles;
  /** --auto-compaction-mode / --auto-compaction-retention; absent: retention 0, no auto-compaction. */
  autoCompaction?: AutoCompactionConfig;
}
