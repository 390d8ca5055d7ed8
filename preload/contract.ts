// The typed bridge between the console's services and the renderer: every
// call the renderer may make (request → response) and every event stream the
// services push. Main registers one handler per call key (the compiler notices
// a missing one), the preload exposes exactly these, and the web host serves
// the same map over its authenticated WebSocket. The renderer never knows
// which host it runs in.
//
// Everything here must be structured-clone and JSON safe (no bigint, no Map):
// revisions and ids that exceed 2^53 travel as decimal strings.

// ---------------------------------------------------------------- shared shapes

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
  /** How the value was encoded in etcd: 'protobuf' (k8s\0), 'json', 'encrypted', 'binary'. */
  encoding: string;
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

// ---------------------------------------------------------------- calls

export interface BridgeCalls {
  /** Pilothouse's version and the runtime the console runs in. */
  version(): { pilothouse: string; runtime: 'electron' | 'web'; versions: Record<string, string> };

  /** Topology, process states, members and the one-line health. */
  overview(): ClusterOverview;
  startupProgress(): StartupStep[];

  /** One status probe of every member (etcdctl endpoint status + health). */
  members(): MemberStatus[];
  memberAction(req: { member: string; action: MemberAction }): ActionResult;
  /** Start/stop/kill/restart the API server or controllers process. */
  componentAction(req: { component: string; action: 'stop' | 'kill' | 'restart' | 'start' | 'pause' | 'resume' }): ActionResult;

  leaderTimeline(): LeaderEvent[];
  /** kill -9 the current leader, measure the time to a new leader, restart the old one. */
  killLeaderExperiment(): FailoverResult;

  /** The most recent watch events (newest last), up to `limit`. */
  recentWatchEvents(req: { limit: number }): WatchEventRecord[];
  watchEventDetail(req: { seq: number }): WatchEventDetail | null;

  recentTraces(req: { limit: number }): TraceRecord[];

  listSnapshots(): SnapshotInfo[];
  /** Starts a snapshot; progress arrives on the snapshotProgress stream. */
  takeSnapshot(): { jobId: string };
  cancelSnapshot(req: { jobId: string }): { cancelled: boolean };
  verifySnapshot(req: { name: string }): SnapshotInfo;
  deleteSnapshot(req: { name: string }): { deleted: boolean };
  /** Stops the cluster, restores every member from the file, restarts; progress on restoreProgress. */
  restoreSnapshot(req: { name: string }): { started: boolean };

  openTerminal(req: { cols: number; rows: number }): TerminalInfo;
  terminalInput(req: { id: string; data: string }): void;
  resizeTerminal(req: { id: string; cols: number; rows: number }): void;
  closeTerminal(req: { id: string }): void;

  logs(req: { component: string; search?: string; limit?: number }): LogLine[];
  /** Components that have logs. */
  logComponents(): string[];
}

export type BridgeCallName = keyof BridgeCalls;

export const BRIDGE_CALLS: readonly BridgeCallName[] = [
  'version',
  'overview',
  'startupProgress',
  'members',
  'memberAction',
  'componentAction',
  'leaderTimeline',
  'killLeaderExperiment',
  'recentWatchEvents',
  'watchEventDetail',
  'recentTraces',
  'listSnapshots',
  'takeSnapshot',
  'cancelSnapshot',
  'verifySnapshot',
  'deleteSnapshot',
  'restoreSnapshot',
  'openTerminal',
  'terminalInput',
  'resizeTerminal',
  'closeTerminal',
  'logs',
  'logComponents',
];

// ---------------------------------------------------------------- event streams

/** Streams the services push. Batched where they can be busy (watch events, traces, logs). */
export interface BridgeEvents {
  overview: ClusterOverview;
  startupProgress: StartupStep[];
  leaderEvent: LeaderEvent;
  /** Batches of watch events, at most every 100 ms. */
  watchEvents: WatchEventRecord[];
  traces: TraceRecord[];
  snapshotProgress: SnapshotProgress;
  restoreProgress: RestoreProgress;
  terminalData: { id: string; data: string };
  terminalExit: { id: string; code: number };
  logLines: LogLine[];
}

export type BridgeEventName = keyof BridgeEvents;

export const BRIDGE_EVENTS: readonly BridgeEventName[] = [
  'overview',
  'startupProgress',
  'leaderEvent',
  'watchEvents',
  'traces',
  'snapshotProgress',
  'restoreProgress',
  'terminalData',
  'terminalExit',
  'logLines',
];

/** The IPC channel each call travels on. */
export function channelFor(name: BridgeCallName): string {
  return `pilothouse:${name}`;
}

/** The IPC channel each event stream travels on. */
export function eventChannelFor(name: BridgeEventName): string {
  return `pilothouse-event:${name}`;
}

/** Main-side implementation: one handler per call. */
export type BridgeHandlers = {
  [K in BridgeCallName]: (...args: Parameters<BridgeCalls[K]>) => ReturnType<BridgeCalls[K]> | Promise<ReturnType<BridgeCalls[K]>>;
};

/** What the renderer sees on `window.pilothouse` (Electron) or gets from the WebSocket client (web host). */
export type Bridge = {
  [K in BridgeCallName]: (...args: Parameters<BridgeCalls[K]>) => Promise<ReturnType<BridgeCalls[K]>>;
} & {
  /** Subscribe to an event stream; returns the unsubscribe function. */
  on<E extends BridgeEventName>(event: E, listener: (payload: BridgeEvents[E]) => void): () => void;
};

/** Main-side publisher the services use to push events to whichever host is attached. */
export interface EventSink {
  emit<E extends BridgeEventName>(event: E, payload: BridgeEvents[E]): void;
}

// ---------------------------------------------------------------- web host wire format

/**
 * The WebSocket subprotocols a browser page offers on /bridge: this one, which
 * the host selects, and `pilothouse.token.<token>`, which carries the access
 * token (a browser's WebSocket can set no other header) and is never echoed.
 */
export const BRIDGE_SUBPROTOCOL = 'pilothouse.bridge';
export const TOKEN_SUBPROTOCOL_PREFIX = 'pilothouse.token.';

/** Renderer → web host over the WebSocket. */
export interface WireCall {
  t: 'call';
  id: number;
  name: BridgeCallName;
  args: unknown[];
}

/** Web host → renderer. */
export type WireMessage =
  | { t: 'result'; id: number; ok: true; value: unknown }
  | { t: 'result'; id: number; ok: false; error: string }
  | { t: 'event'; name: BridgeEventName; payload: unknown };
