// The typed bridge between the console's services and the renderer: every
// call the renderer may make (request → response) and every event stream the
// services push. Main registers one handler per call key (the compiler notices
// a missing one), the preload exposes exactly these, and the web host serves
// the same map over its authenticated WebSocket. The renderer never knows
// which host it runs in.
//
// Everything here must be structured-clone and JSON safe (no bigint, no Map):
// revisions and ids that exceed 2^53 travel as decimal strings. The data
// shapes are in ./shapes and re-exported below, so the renderer still imports
// only this file. The runtime name lists are built with keysOf, so a call or
// stream added to the type map without its name (or the other way round) does
// not compile.

import { keysOf } from './keysOf';
import type {
  ActionResult,
  ClusterOverview,
  ConnectionDraft,
  ConnectionEntry,
  ConnectionImport,
  ConnectionProfile,
  CurrentCluster,
  FeedStatus,
  FailoverResult,
  LeaderEvent,
  LogLine,
  MemberAction,
  MemberStatus,
  RestoreProgress,
  SnapshotInfo,
  SnapshotProgress,
  StartupStep,
  TerminalInfo,
  TraceRecord,
  BackupScheduleInfo,
  WalkthroughAction,
  UpgradeRequest,
  WalkthroughKind,
  WalkthroughReport,
  WalkthroughRun,
  WatchEventDetail,
  WatchEventRecord,
} from './shapes';

export type * from './shapes';

// ---------------------------------------------------------------- calls

/** The calls one cluster's console services answer (embedded or attached). */
export interface ClusterCalls {
  /** Pilothouse's version and commit ("1a2b3c4", "-dirty" when built with changes), and the runtime the console runs in. */
  version(): { pilothouse: string; commit: string; runtime: 'electron' | 'web'; versions: Record<string, string> };

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
  /** Where Watch events and the Admission log come from, and what each cannot show (skipped resources, no traces). */
  feedStatus(): FeedStatus;

  listSnapshots(): SnapshotInfo[];
  /** Starts a snapshot; progress arrives on the snapshotProgress stream. */
  takeSnapshot(): { jobId: string };
  cancelSnapshot(req: { jobId: string }): { cancelled: boolean };
  verifySnapshot(req: { name: string }): SnapshotInfo;
  deleteSnapshot(req: { name: string }): { deleted: boolean };
  /**
   * Electron: a native open dialog for a snapshot file (null when cancelled).
   * The web host has no dialog: it answers { path: null, dialog: false } and the view asks for a path.
   */
  chooseSnapshotFile(): { path: string | null; dialog: boolean };
  /** Verifies a snapshot file from anywhere (etcd 3.4's or ours) and copies it into DIR/snapshots, marked imported. */
  importSnapshot(req: { path: string }): SnapshotInfo;
  /** Stops the cluster, restores every member from the file, restarts; progress on restoreProgress. */
  restoreSnapshot(req: { name: string }): { started: boolean };

  /** The walkthroughs the console can start (backup, drill, restore). */
  walkthroughKinds(): WalkthroughKind[];
  /** Every run under DIR/walkthroughs, newest first (CLI runs included). */
  listWalkthroughs(): WalkthroughRun[];
  /** Starts a run; a drill or restore names a file under DIR/snapshots, an upgrade its target and flags. Changes arrive on walkthroughRun. */
  startWalkthrough(req: { kind: string; snapshot?: string; upgrade?: UpgradeRequest }): WalkthroughRun;
  walkthroughAction(req: { id: string; action: WalkthroughAction }): WalkthroughRun;
  /** The run's report.md. */
  walkthroughReport(req: { id: string }): WalkthroughReport;
  /** Scheduled backups: each tick runs the backup walkthrough and keeps the newest `keep` scheduled ones. */
  backupSchedule(): BackupScheduleInfo;
  setBackupSchedule(req: { enabled: boolean; cron: string; keep: number }): BackupScheduleInfo;

  openTerminal(req: { cols: number; rows: number }): TerminalInfo;
  terminalInput(req: { id: string; data: string }): void;
  resizeTerminal(req: { id: string; cols: number; rows: number }): void;
  closeTerminal(req: { id: string }): void;

  logs(req: { component: string; search?: string; limit?: number }): LogLine[];
  /** Components that have logs. */
  logComponents(): string[];
}

/** The calls the session answers itself: the saved connections and which cluster the console shows. */
export interface SessionCalls {
  /** The lab first, then the saved connections; `current` is the id shown now. */
  listConnections(): { current: string; connections: ConnectionEntry[] };
  /** Saves a new connection (no id) or replaces one (its id); file paths must be absolute and exist. */
  saveConnection(req: ConnectionDraft & { id?: string }): ConnectionProfile;
  /** The connection shown now cannot be deleted. */
  deleteConnection(req: { id: string }): { deleted: boolean };
  /** Reads connection drafts from an etcdctl.env file, the ETCDCTL_* variables, a kubeadm pki/etcd dir, or kubeconfig contexts (path, else KUBECONFIG, else ~/.kube/config). */
  importConnections(req: { from: 'etcdctl-env' | 'env' | 'kubeadm' | 'kubeconfig'; path?: string }): ConnectionImport;
  /** Disposes the services of the cluster shown and starts those of another ('lab': the embedded plane); clusterSwitched follows. */
  switchCluster(req: { id: string }): CurrentCluster;
  currentCluster(): CurrentCluster;
  /** Shown an attached cluster: restores the lab from one of its snapshots (by file name) and switches to the lab, which boots from the copy. */
  cloneIntoLab(req: { snapshot: string }): CurrentCluster;
}

export interface BridgeCalls extends ClusterCalls, SessionCalls {}

export type BridgeCallName = keyof BridgeCalls;
export type ClusterCallName = keyof ClusterCalls;
export type SessionCallName = keyof SessionCalls;

export const SESSION_CALLS: readonly SessionCallName[] = keysOf<SessionCalls>({
  listConnections: true,
  saveConnection: true,
  deleteConnection: true,
  importConnections: true,
  switchCluster: true,
  currentCluster: true,
  cloneIntoLab: true,
});

export const CLUSTER_CALLS: readonly ClusterCallName[] = keysOf<ClusterCalls>({
  version: true,
  overview: true,
  startupProgress: true,
  members: true,
  memberAction: true,
  componentAction: true,
  leaderTimeline: true,
  killLeaderExperiment: true,
  recentWatchEvents: true,
  watchEventDetail: true,
  recentTraces: true,
  feedStatus: true,
  listSnapshots: true,
  takeSnapshot: true,
  cancelSnapshot: true,
  verifySnapshot: true,
  deleteSnapshot: true,
  restoreSnapshot: true,
  chooseSnapshotFile: true,
  importSnapshot: true,
  walkthroughKinds: true,
  listWalkthroughs: true,
  startWalkthrough: true,
  walkthroughAction: true,
  walkthroughReport: true,
  backupSchedule: true,
  setBackupSchedule: true,
  openTerminal: true,
  terminalInput: true,
  resizeTerminal: true,
  closeTerminal: true,
  logs: true,
  logComponents: true,
});

export const BRIDGE_CALLS: readonly BridgeCallName[] = [...CLUSTER_CALLS, ...SESSION_CALLS];

// ---------------------------------------------------------------- event streams

/** Streams the services push. Batched where they can be busy (watch events, traces, logs). */
export interface BridgeEvents {
  overview: ClusterOverview;
  startupProgress: StartupStep[];
  leaderEvent: LeaderEvent;
  /** Batches of watch events, at most every 100 ms. */
  watchEvents: WatchEventRecord[];
  traces: TraceRecord[];
  /** The feeds' status changed. */
  feedStatus: FeedStatus;
  snapshotProgress: SnapshotProgress;
  restoreProgress: RestoreProgress;
  /** A walkthrough run changed (state, a step, progress or output; progress at most every 100 ms). */
  walkthroughRun: WalkthroughRun;
  terminalData: { id: string; data: string };
  terminalExit: { id: string; code: number };
  logLines: LogLine[];
  /** The console now shows another cluster: every view re-reads its state. */
  clusterSwitched: CurrentCluster;
}

export type BridgeEventName = keyof BridgeEvents;

export const BRIDGE_EVENTS: readonly BridgeEventName[] = keysOf<BridgeEvents>({
  overview: true,
  startupProgress: true,
  leaderEvent: true,
  watchEvents: true,
  traces: true,
  feedStatus: true,
  snapshotProgress: true,
  restoreProgress: true,
  walkthroughRun: true,
  terminalData: true,
  terminalExit: true,
  logLines: true,
  clusterSwitched: true,
});

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

/** One cluster's services: every call but the session's. */
export type ClusterHandlers = Omit<BridgeHandlers, SessionCallName>;

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
