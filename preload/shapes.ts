// The data the console's services and the renderer exchange: what each
// bridge call returns and each event stream carries. preload/contract.ts
// re-exports all of it, so the renderer and main import these from the
// contract and nowhere else.
//
// Everything here must be structured-clone and JSON safe (no bigint, no Map):
// revisions and ids that exceed 2^53 travel as decimal strings.

export type ComponentKind = 'etcd' | 'apiserver' | 'controllers';
export type ProcessState = 'starting' | 'running' | 'stopped' | 'crashed' | 'restarting' | 'paused';

export interface ComponentStatus {
  /** 'm1', 'm2', 'm3', 'apiserver', 'controllers'. */
  id: string;
  kind: ComponentKind;
  state: ProcessState;
  pid?: number;
  /** Client URL (etcd) or https URL (apiserver). */
  url?: string;
  restarts: number;
  /** Last exit code/signal when stopped or crashed. */
  lastExit?: { code: number | null; signal: string | null; at: string };
  startedAt?: string;
}

export interface StartupStep {
  id: string;
  label: string;
  state: 'pending' | 'running' | 'done' | 'failed';
  detail?: string;
  elapsedMs?: number;
}

export interface MemberStatus {
  name: string;
  /** Member id as 16 hex digits, as etcdctl prints it. */
  id: string;
  endpoint: string;
  healthy: boolean;
  isLeader: boolean;
  isLearner: boolean;
  /** Leader id this member reports (hex), '' if none. */
  leader: string;
  raftTerm: string;
  raftIndex: string;
  raftAppliedIndex: string;
  dbSize: number;
  dbSizeInUse: number;
  version: string;
  alarms: string[];
  errors: string[];
  /** Round trip of the status probe. */
  probeLatencyMs?: number;
  /** Process state from the supervisor (embedded cluster only). */
  process?: ProcessState;
  checkedAt: string;
}

/** One Kubernetes node as the overview shows it (read through the API server). */
export interface NodeSummary {
  name: string;
  /** The Ready condition's status: 'Unknown' once the node lifecycle controller stops hearing heartbeats. */
  ready: 'True' | 'False' | 'Unknown';
  /** The Ready condition's reason (KubeletReady, NodeStatusUnknown, ...). */
  reason?: string;
  /** Pods bound to this node that have not terminated. */
  pods: number;
  /** Pilothouse's simulated kubelet (annotation kubelet.pilothouse.dev/state): paused = partitioned, stopped = down; both stop heartbeats. */
  kubelet: 'running' | 'paused' | 'stopped';
  unschedulable: boolean;
  /** key:effect of each taint. */
  taints: string[];
  cpu?: string;
  memory?: string;
  /** The Ready condition's lastHeartbeatTime. */
  lastHeartbeat?: string;
}

export interface ClusterOverview {
  /** 'embedded' (the supervisor's control plane) or 'external' (attached to a real cluster). */
  mode: 'embedded' | 'external';
  components: ComponentStatus[];
  members: MemberStatus[];
  leader?: string;
  /** One line: "healthy: 3/3 members, leader m2 (term 4), API server ready". */
  summary: string;
  health: 'healthy' | 'degraded' | 'down' | 'starting';
  clusterId?: string;
  /** The cluster's nodes, once the console follows the API server (absent before, and for etcd-only clusters). */
  nodes?: NodeSummary[];
  /** The connection shown: its id ('lab' for the embedded plane), name, and whether actions that change the cluster are allowed. */
  connection?: { id: string; name: string; writable: boolean };
}

export interface LeaderEvent {
  at: string;
  kind: 'elected' | 'lost' | 'changed' | 'no-leader';
  term: string;
  leader?: string;
  previousLeader?: string;
  /** For 'elected' after a gap: how long there was no leader. */
  leaderlessMs?: number;
}

export interface FailoverResult {
  killed: string;
  oldTerm: string;
  newLeader: string;
  newTerm: string;
  /** From the kill to the first status answer naming the new leader. */
  failoverMs: number;
  /** The member was restarted afterwards. */
  restarted: boolean;
}

export type MemberAction = 'stop' | 'kill' | 'restart' | 'start' | 'pause' | 'resume' | 'make-leader' | 'defrag';

export interface ActionResult {
  ok: boolean;
  message: string;
  /** The etcdctl (or shell) command this action corresponds to, for the user to learn. */
  command: string;
}

export interface WatchEventRecord {
  /** Monotonic sequence number within this console session. */
  seq: number;
  source: 'etcd' | 'kubernetes';
  type: 'PUT' | 'DELETE' | 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  key: string;
  /** mod_revision (etcd) or resourceVersion (kubernetes) as a decimal string. */
  revision: string;
  /** Parsed from the key: /registry/<resource>/<namespace>/<name>. */
  resource?: string;
  namespace?: string;
  name?: string;
  kind?: string;
  at: string;
  /** Bytes of the value (etcd) after decoding; omitted in the stream, fetched with watchEventDetail. */
  size: number;
}

export interface WatchEventDetail {
  seq: number;
  /** The decoded object as YAML (protobuf or JSON values), or a hex dump when undecodable. */
  yaml: string;
  /** The previous version's YAML (etcd prev_kv), '' when none. */
  previousYaml: string;
  /** How the value was encoded in etcd: 'protobuf' (k8s\0), 'json', 'encrypted', 'binary'; 'json (Kubernetes API)' from the API. */
  encoding: string;
  /** What the detail can and cannot show (from the Kubernetes API: no raw etcd bytes). */
  note?: string;
}

export interface TraceRecord {
  id: string;
  receivedAt: string;
  user?: string;
  groups?: string[];
  verb: string;
  method: string;
  path: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  decision: 'allowed' | 'denied' | 'error';
  code?: number;
  message?: string;
  resourceVersion?: string;
  latencyMs?: number;
  stages: { stage: string; verdict: string; reason?: string; patch?: unknown[]; latencyMs: number }[];
  /** 'audit' when read from the API server's audit log (no per-stage latencies); a trace otherwise. */
  source?: 'trace' | 'audit';
}

/** Where the Watch events and Admission log views get their records, and what they cannot show. */
export interface FeedStatus {
  watch: {
    /** etcd's keyspace, the Kubernetes API, or both (one list). */
    sources: ('etcd' | 'kubernetes')[];
    /** Kubernetes resources watched ("configmaps in team-a" when only one namespace is allowed). */
    resources: string[];
    /** Resources skipped and why ("cannot watch secrets: forbidden (…)"), a failure being retried, or why there is no feed. */
    notes: string[];
  };
  admission: {
    /** Pilothouse's request traces, the API server's audit log, or nothing. */
    source: 'traces' | 'audit-log' | 'none';
    /** The audit log followed, with source 'audit-log'. */
    path?: string;
    /** Why there is nothing, or what goes wrong reading the log. */
    notes: string[];
  };
}

export interface SnapshotInfo {
  /** File name under DIR/snapshots. */
  name: string;
  path: string;
  size: number;
  revision: string;
  totalKeys: number;
  hash: string;
  createdAt: string;
  /** Result of the last verify: undefined = never verified. */
  verified?: boolean;
  /** What the backup's verification found (from the metadata beside the file, `<file>.json`); absent for a file without it. */
  facts?: SnapshotVerification;
  /** The last restore drill of this file, from its metadata. */
  lastDrill?: SnapshotDrill;
  /** Who took it: the member it was streamed from and how ('save' by hand, 'schedule'), or 'import' (member and cluster id empty). */
  takenFrom?: { member: string; source: 'save' | 'schedule' | 'import'; clusterId: string };
  /** With source 'import': the path it was imported from. */
  importedFrom?: string;
}

export interface SnapshotVerification {
  integrity: 'ok';
  /** Hex sha256 of the body. */
  sha256: string;
  revision: number;
  totalKeys: number;
  /** '/registry/<resource>' or '/registry/<group>/<resource>' → live keys. */
  resources: Record<string, number>;
  nonRegistryKeys: number;
}

export interface SnapshotDrill {
  at: string;
  verdict: 'restorable' | 'failed';
  rtoMs?: number;
  reason?: string;
}

export interface SnapshotProgress {
  jobId: string;
  bytes: number;
  /** From the stream's remaining_bytes; undefined until known. */
  totalBytes?: number;
  state: 'running' | 'done' | 'cancelled' | 'failed';
  error?: string;
  snapshot?: SnapshotInfo;
}

export interface RestoreProgress {
  step: string;
  state: 'running' | 'done' | 'failed';
  detail?: string;
  /** After success: the new cluster id (hex) and how many keys are back. */
  clusterId?: string;
  keys?: number;
}

export interface TerminalInfo {
  id: string;
  title: string;
  /** Missing tools and how to install them ('etcdctl: apt-get install etcd-client'). */
  missingTools: string[];
}

export interface LogLine {
  component: string;
  seq: number;
  at: string;
  stream: 'stdout' | 'stderr' | 'supervisor';
  text: string;
}

// ---------------------------------------------------------------- walkthroughs
// The same shapes as main/walkthrough/types.ts's RunRecord and StepRecord
// (the console's handlers pass those through; the compiler checks they fit).

export type WalkthroughStepState = 'pending' | 'running' | 'paused' | 'succeeded' | 'failed' | 'cancelled' | 'skipped';
export type WalkthroughRunState = 'running' | 'paused' | 'waiting' | 'succeeded' | 'failed' | 'cancelled' | 'interrupted';

export interface WalkthroughStep {
  id: string;
  title: string;
  why: string;
  /** The exact etcdctl/kubectl/pilothouse command the step corresponds to. */
  command: string;
  /** 'confirm': destructive; the run waits for the user's go-ahead before it. */
  gate?: 'confirm';
  /** What the gate says the step does (default: that it cannot be undone). */
  gateNote?: string;
  state: WalkthroughStepState;
  progress?: { done: number; total?: number; unit?: string };
  output: string[];
  verdict?: string;
  error?: string;
  startedAt?: string;
  endedAt?: string;
}

export interface WalkthroughRun {
  id: string;
  kind: string;
  title: string;
  params: Record<string, unknown>;
  state: WalkthroughRunState;
  reason?: string;
  startedAt: string;
  endedAt?: string;
  steps: WalkthroughStep[];
  figures?: Record<string, string | number>;
  /** Paths of report.md and report.json under DIR/walkthroughs/<id>/. */
  report?: { markdown: string; json: string };
}

/** The upgrade walkthrough's start form (main checks every field). */
export interface UpgradeRequest {
  /** A directory holding the target build (DIR/out/main/cli.js); flags only when unset. */
  to?: string;
  /** COMPONENT.FLAG=VALUE, e.g. etcd.quota-backend-bytes=4294967296. */
  set?: string[];
  /** A Go duration: how long each component may take to be back (default 5m). */
  timeout?: string;
  /** Rehearse on a copy restored from the newest backup first (default true). */
  rehearse?: boolean;
  /** Rehearse a member that refuses its flags at start, and its rollback. */
  rehearseBadFlag?: boolean;
  /** Go ahead without a verified backup younger than an hour. */
  force?: boolean;
}

export interface WalkthroughKind {
  kind: string;
  title: string;
  /** The run needs a snapshot file to work on (drill, restore). */
  needsSnapshot: boolean;
  /** The start form the card shows before the run: 'snapshot' (a file to pick), 'upgrade' (target and flags), or none. */
  form: 'none' | 'snapshot' | 'upgrade';
  /** One sentence for the start card. */
  description: string;
}

export type WalkthroughAction = 'pause' | 'resume' | 'cancel' | 'retry' | 'confirm';

export interface WalkthroughReport {
  id: string;
  path: string;
  markdown: string;
}

/** The console's scheduled backups (k3s-style: a cron expression and how many scheduled backups to keep). */
export interface BackupScheduleInfo {
  enabled: boolean;
  /** Five-field cron ('0 *\/12 * * *') or '@every 12h'. */
  cron: string;
  keep: number;
  /** When the next scheduled backup starts; absent when disabled. */
  nextAt?: string;
  /** The latest scheduled backup run. */
  lastRun?: { id: string; state: WalkthroughRunState; startedAt: string };
}

// ---------------------------------------------------------------- connections

/** How the console reaches a cluster it does not run: etcd members, a kubeconfig context, or both. Certificates are referenced by path, never copied. */
export interface ConnectionDraft {
  name: string;
  etcd?: { endpoints: string[]; cacert?: string; cert?: string; key?: string };
  /** auditLog: the API server's audit log (JSON lines), read for the Admission log view, since only Pilothouse's own API server serves request traces. */
  kube?: { kubeconfig: string; context?: string; auditLog?: string };
  /** Allow actions that change the cluster (defrag, move-leader); read-only otherwise. */
  writable: boolean;
}

/** A saved connection (DIR/console/connections.json). */
export interface ConnectionProfile extends ConnectionDraft {
  id: string;
}

/** One entry of the cluster switcher: the embedded lab (id 'lab') or a saved connection. */
export interface ConnectionEntry extends ConnectionProfile {
  kind: 'lab' | 'etcd' | 'kube' | 'etcd+kube';
}

/** The cluster the console shows now. */
export interface CurrentCluster {
  /** 'lab' for the embedded plane, else a saved connection's id. */
  id: string;
  name: string;
  mode: 'embedded' | 'external';
  writable: boolean;
}

/** What an importer found: drafts for the Add-connection dialog, not saved yet. */
export interface ConnectionImport {
  /** The file(s) or variables read, for the dialog to say. */
  source: string;
  drafts: ConnectionDraft[];
  /** From a kubeconfig: its current-context (the first file's that sets one). */
  currentContext?: string;
}
