// Everything behind the bridge, composed: the cluster (a ConsoleCluster; the
// embedded one wraps the orchestrator that runs the control plane), member probes, the leader timeline, snapshots and restore, logs,
// the watch and trace feeds and the terminals — one handler per key of
// BridgeCalls (the compiler checks the map is complete), events through the
// host's EventSink. The Electron shell and the web host both call
// createConsoleServices; nothing here knows which one it runs under. The
// services reach the cluster only through ConsoleCluster, and an action the
// cluster cannot do (its capabilities) is answered as such.

import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ClusterHandlers, ClusterOverview, EventSink, FeedStatus, MemberStatus, WatchEventRecord } from '../../preload/contract';
import { PILOTHOUSE_VERSION, shortCommit } from '../common/version';
import { notPossible, readOnly, type ConsoleCluster } from './cluster';
import { EmbeddedCluster } from './embeddedCluster';
import { AttachedCluster, type AttachOptions } from './attachedCluster';
import { AttachedFeeds } from './attachedFeeds';
import { kubeConfigFromFile } from '../client/kube/rest';
import { killLeaderExperiment } from './failoverExperiment';
import { LeaderTimeline, leaderSample } from './leaderTimeline';
import { LogStore } from '../controlplane/logStore';
import { memberAction, shellQuote } from './memberActions';
import { MemberHealth, type ProbeRound } from './memberHealth';
import type { Program } from '../controlplane/program';
import { buildOverview, overviewFingerprint } from './overview';
import { restoreCluster } from './snapshotRestore';
import { SnapshotStore } from './snapshots';
import { Supervisor } from '../controlplane/supervisor';
import { TerminalService } from './terminals';
import { NodesFeed } from './nodesFeed';
import { TraceFeed } from './traceFeed';
import { WatchFeed } from './watchFeed';
import { consoleWalkthroughs } from './consoleWalkthroughs';
import { BackupSchedule } from './backupSchedule';
import { WalkthroughService, type ConsoleWalkthrough } from './walkthroughs';

export interface ConsoleServicesOptions {
  dataDir: string;
  portBase: number;
  cliPath: string;
  runtime: 'electron' | 'web';
  events: EventSink;
  /** Tests: run members of another program (Debian's etcd), faster restarts. */
  memberProgram?: Program;
  startTimeoutMs?: number;
  /** Tests: walkthroughs offered besides the console's own (backup, drill, restore). */
  extraWalkthroughs?: ConsoleWalkthrough[];
  /** The switcher's entry these services show (default: the lab, or the attachment's name). */
  connection?: { id: string; name: string };
}

export interface ConsoleServices {
  handlers: ClusterHandlers;
  start(): Promise<void>;
  dispose(): Promise<void>;
  /** What the services see of the cluster. */
  readonly cluster: ConsoleCluster;
  /** For tests and the hosts' logs: the orchestrator behind the embedded cluster (processes, cold-start time, rolling restart). */
  readonly supervisor: Supervisor;
}

export { parseEnvFile } from '../controlplane/envFile';

/** The console over the embedded control plane, which it runs under opts.dataDir. */
export function createConsoleServices(opts: ConsoleServicesOptions): ConsoleServices {
  const logs = new LogStore(opts.events);
  let onChange = (): void => {};
  const supervisor = new Supervisor({
    dataDir: opts.dataDir,
    portBase: opts.portBase,
    cliPath: opts.cliPath,
    logs,
    events: opts.events,
    memberProgram: opts.memberProgram,
    onComponentChange: () => onChange(),
  });
  const services = composeServices(opts, new EmbeddedCluster(supervisor), logs, supervisor);
  onChange = services.publishOverview;
  return { ...services.services, supervisor };
}

export interface AttachedConsoleServices extends Omit<ConsoleServices, 'supervisor' | 'cluster'> {
  readonly cluster: AttachedCluster;
}

/** The console attached to a cluster it does not run (its state, snapshots and walkthrough history under opts.dataDir). */
export function createAttachedConsoleServices(opts: Omit<ConsoleServicesOptions, 'portBase' | 'memberProgram'> & { attach: AttachOptions }): AttachedConsoleServices {
  const logs = new LogStore(opts.events);
  const cluster = new AttachedCluster(opts.attach, opts.events);
  const { services } = composeServices({ connection: { id: 'attached', name: opts.attach.name }, ...opts, portBase: 0 }, cluster, logs, undefined);
  return { ...services, cluster };
}

function composeServices(
  opts: ConsoleServicesOptions,
  cluster: ConsoleCluster,
  logs: LogStore,
  supervisor: Supervisor | undefined,
): { services: Omit<ConsoleServices, 'supervisor'>; publishOverview: () => void } {
  const { dataDir, events } = opts;
  let lastOverview = '';
  let starting = true;
  let apiReady: boolean | undefined; // undefined: no API server (yet)
  let busy: string | undefined; // one cluster-wide operation at a time (failover experiment, restore)
  const timeline = new LeaderTimeline(join(dataDir, 'console', 'leader-history.jsonl'), (e) => events.emit('leaderEvent', e));
  const health = new MemberHealth(cluster, (round) => onRound(round));
  const snapshots = new SnapshotStore({
    dir: join(dataDir, 'snapshots'),
    events,
    source: () => {
      const m = health.latest()?.members.find((x) => x.healthy);
      const name = m?.name ?? cluster.members[0]!.name;
      return { name, client: cluster.memberClient(name) };
    },
  });
  const walkthroughs = new WalkthroughService({
    dir: join(dataDir, 'walkthroughs'),
    events,
    snapshotPath: (name) => snapshots.path(name),
    walkthroughs: [...consoleWalkthroughs({ dataDir, snapshotsDir: snapshots.dir, cluster, cliPath: opts.cliPath, supervisor, portBase: opts.portBase }), ...(opts.extraWalkthroughs ?? [])],
    onEnded: (run) => {
      // the restored cluster's revisions are new: follow them afresh
      if (run.kind === 'restore' && run.state === 'succeeded') void startWatchFeed();
    },
  });
  const schedule = new BackupSchedule({
    file: join(dataDir, 'console', 'backup-schedule.json'),
    snapshotsDir: snapshots.dir,
    dataDir,
    engine: walkthroughs.engine,
    onError: (m) => logs.note('console', m),
  });
  let watchFeed: WatchFeed | undefined;
  let traceFeed: TraceFeed | undefined; // follows the API server's traces once the control plane runs one
  let nodesFeed: NodesFeed | undefined; // the nodes, through the API server
  let attachedFeeds: AttachedFeeds | undefined; // an attached cluster's Kubernetes API watch, nodes and audit log
  let watchSeq = 0; // one seq for the etcd and the Kubernetes API feeds: the view shows one list
  const nextSeq = (): number => ++watchSeq;
  let lastFeedStatus = '';
  let terminals: TerminalService | undefined;

  function onRound(round: ProbeRound): void {
    const nameById = new Map<string, string>();
    for (const [name, st] of round.statuses) if (st.header) nameById.set(st.header.member_id, name);
    timeline.observe(leaderSample(round.at, round.statuses.values(), (id) => nameById.get(id)));
    publishOverview();
    void cluster.checkReadiness().then((ready) => {
      if (ready === apiReady) return;
      apiReady = ready;
      publishOverview();
    });
  }

  function currentMembers(): MemberStatus[] {
    const probed = health.latest()?.members;
    if (probed) return probed.map((m) => ({ ...m, process: cluster.processState(m.name) }));
    return cluster.members.map((m) => ({
      name: m.name, id: '', endpoint: m.clientUrl, healthy: false, isLeader: false, isLearner: false, leader: '',
      raftTerm: '', raftIndex: '', raftAppliedIndex: '', dbSize: 0, dbSizeInUse: 0, version: '', alarms: [], errors: ['not probed yet'],
      process: cluster.processState(m.name), checkedAt: new Date().toISOString(),
    }));
  }

  function overview(): ClusterOverview {
    const clusterId = health.latest()?.clusterId;
    return buildOverview({
      mode: cluster.mode,
      components: cluster.components(),
      members: currentMembers(),
      starting,
      ...(clusterId ? { clusterId } : {}),
      ...(cluster.hasApiServer ? { apiserverReady: apiReady ?? false } : {}),
      ...(nodes() ? { nodes: nodes() } : {}),
      connection: { ...(opts.connection ?? { id: 'lab', name: 'lab (embedded)' }), writable: cluster.writable },
    });
  }

  function nodes() {
    return (nodesFeed ?? attachedFeeds?.nodes)?.nodes();
  }

  function feedStatus(): FeedStatus {
    const kube = attachedFeeds?.watchStatus();
    const sources: FeedStatus['watch']['sources'] = [...(watchFeed ? ['etcd' as const] : []), ...(attachedFeeds?.kubeWatch ? ['kubernetes' as const] : [])];
    return {
      watch: { sources, resources: kube?.resources ?? [], notes: kube?.notes ?? [] },
      admission: attachedFeeds ? attachedFeeds.admissionStatus() : { source: traceFeed ? 'traces' : 'none', notes: [] },
    };
  }

  function publishFeedStatus(): void {
    const st = feedStatus();
    const fp = JSON.stringify(st);
    if (fp === lastFeedStatus) return;
    lastFeedStatus = fp;
    events.emit('feedStatus', st);
  }

  /** The newest `limit` of both feeds, in seq order. */
  function recentWatchEvents(limit: number): WatchEventRecord[] {
    const a = watchFeed?.recent({ limit }) ?? [];
    const b = attachedFeeds?.kubeWatch?.recent({ limit }) ?? [];
    if (b.length === 0) return a;
    if (a.length === 0) return b;
    return [...a, ...b].sort((x, y) => x.seq - y.seq).slice(-limit);
  }

  function publishOverview(): void {
    const o = overview();
    const fp = overviewFingerprint(o);
    if (fp === lastOverview) return;
    lastOverview = fp;
    events.emit('overview', o);
  }

  async function startWatchFeed(): Promise<void> {
    watchFeed?.dispose();
    watchFeed = undefined;
    if (cluster.members.length === 0) return; // a Kubernetes API only: no etcd to follow
    if (cluster instanceof AttachedCluster && !cluster.watchSources.includes('etcd')) return;
    const tls = cluster.etcdTlsFilesIfAny();
    watchFeed = new WatchFeed({ endpoints: cluster.members.map((m) => m.clientUrl), ...(tls && { tls }), events, nextSeq });
    try {
      await watchFeed.start();
    } catch (err) {
      logs.note('console', `watch feed did not start: ${(err as Error).message}`);
    }
  }

  /** A `pilothouse` command on the terminals' PATH that runs this same program. */
  function writeCliShim(): string {
    const bin = join(dataDir, 'bin');
    mkdirSync(bin, { recursive: true });
    const shim = join(bin, 'pilothouse');
    writeFileSync(shim, `#!/bin/sh\nELECTRON_RUN_AS_NODE=1 exec ${shellQuote(process.execPath)} ${shellQuote(opts.cliPath)} "$@"\n`);
    chmodSync(shim, 0o755);
    return bin;
  }

  function terminalService(): TerminalService {
    if (terminals) return terminals;
    const env = cluster.etcdctlEnv();
    const kubeconfig = cluster.kubeconfigEnv();
    if (kubeconfig) env.KUBECONFIG = kubeconfig;
    env.PATH = [writeCliShim(), process.env.PATH ?? '/usr/bin:/bin'].join(delimiter);
    return (terminals = new TerminalService({ env, cwd: dataDir, events }));
  }

  async function exclusive<T>(what: string, fn: () => Promise<T>): Promise<T> {
    if (busy) throw new Error(`${busy} is in progress; try again when it has finished`);
    busy = what;
    try {
      return await fn();
    } finally {
      busy = undefined;
    }
  }

  const handlers: ClusterHandlers = {
    version: () => ({
      pilothouse: PILOTHOUSE_VERSION,
      commit: shortCommit(),
      runtime: opts.runtime,
      versions: Object.fromEntries(Object.entries(process.versions).filter((e): e is [string, string] => typeof e[1] === 'string')),
    }),
    overview: () => overview(),
    startupProgress: () => cluster.startupSteps(),
    // before the PKI exists there is nothing to probe with: the placeholders say "not probed yet"
    members: async () => (cluster.startupSteps()[0]?.state === 'done' ? (await health.probeOnce()).members : currentMembers()),
    memberAction: (req) => memberAction(cluster, req.member, req.action),
    componentAction: async (req) => {
      if (!cluster.hasComponent(req.component)) return { ok: false, message: `no component ${req.component}`, command: '' };
      if (!cluster.writable) return { ok: false, message: readOnly(`${req.action} ${req.component}`), command: '' };
      return memberAction(cluster, req.component, req.action);
    },
    leaderTimeline: () => timeline.list(),
    killLeaderExperiment: () =>
      exclusive('the kill-the-leader experiment', () => killLeaderExperiment(cluster, timeline)),
    recentWatchEvents: (req) => recentWatchEvents(req.limit),
    watchEventDetail: async (req) => {
      const kube = attachedFeeds?.kubeWatch;
      if (kube?.holds(req.seq)) return kube.detail(req);
      return watchFeed ? watchFeed.detail(req) : null;
    },
    recentTraces: (req) => (traceFeed ?? attachedFeeds?.audit)?.recent(req) ?? [],
    feedStatus: () => feedStatus(),
    listSnapshots: () => snapshots.list(),
    takeSnapshot: () => ({ jobId: snapshots.take().jobId }),
    cancelSnapshot: (req) => snapshots.cancel(req.jobId),
    verifySnapshot: (req) => snapshots.verify(req.name),
    deleteSnapshot: (req) => snapshots.delete(req.name),
    // the Electron shell answers this one with a native dialog; the web host has none
    chooseSnapshotFile: () => ({ path: null, dialog: false }),
    importSnapshot: (req) => snapshots.import(req.path),
    restoreSnapshot: (req) => {
      if (!cluster.capabilities.snapshotRestore) throw new Error(notPossible('restoring a snapshot', cluster));
      if (!cluster.writable) throw new Error(readOnly('restoring a snapshot'));
      const path = snapshots.path(req.name);
      if (!existsSync(path)) throw new Error(`stat ${path}: no such file or directory`);
      if (busy) return { started: false };
      void exclusive('a restore', async () => {
        await restoreCluster(
          // the API server goes down with the members: its watch cache holds the old cluster's revisions
          // a slow start is no reason to roll back: give the restored members as long as a first start
          { layout: cluster.restorable, client: (n) => cluster.memberClient(n), stopMembers: () => cluster.stopAll(), startMembers: () => cluster.startAll(), events, healthyTimeoutMs: opts.startTimeoutMs ?? 120_000 },
          path,
        );
        await startWatchFeed(); // the restored cluster's revisions start over from the snapshot's
      }).catch((err: Error) => logs.note('console', err.message));
      return { started: true };
    },
    ...walkthroughs.handlers,
    backupSchedule: () => schedule.info(),
    setBackupSchedule: (req) => schedule.set(req),
    openTerminal: (req) => terminalService().open(req),
    terminalInput: (req) => terminalService().input(req),
    resizeTerminal: (req) => terminalService().resize(req),
    closeTerminal: (req) => terminalService().close(req),
    logs: (req) => logs.lines(req.component, req.search, req.limit),
    logComponents: () => logs.components(),
  };

  let disposed = false;
  const services = {
    handlers,
    cluster,
    async start() {
      if (disposed) return;
      logs.attachFile('console', join(dataDir, 'logs', 'console.log'));
      const ok = await cluster.start(opts.startTimeoutMs ?? 120_000);
      starting = false;
      if (disposed) return;
      if (cluster.mode === 'embedded') logs.note('console', ok ? `control plane healthy; cold start ${cluster.coldStartMs} ms` : 'control plane did not become healthy; see the startup steps and member logs');
      else logs.note('console', ok ? `attached: ${cluster.startupSteps().map((st) => st.detail).join('; ')}` : `attaching failed: ${cluster.startupSteps().filter((st) => st.state === 'failed').map((st) => `${st.label}: ${st.detail}`).join('; ')}`);
      health.start();
      const apiUrl = cluster.apiServerUrl;
      const apiTls = cluster.apiServerTlsFiles();
      const kubeconfig = cluster.kubeconfigPath;
      if (ok && apiUrl && apiTls && kubeconfig) {
        apiReady = true;
        traceFeed = new TraceFeed({ url: apiUrl, tls: apiTls, events });
        traceFeed.start();
        nodesFeed = new NodesFeed(kubeConfigFromFile(kubeconfig), () => publishOverview(), (m) => logs.note('console', `nodes feed: ${m}`));
        void nodesFeed.start().catch((err: Error) => logs.note('console', `nodes feed did not start: ${err.message}`));
      }
      if (cluster instanceof AttachedCluster) {
        attachedFeeds = new AttachedFeeds(cluster, { events, nextSeq, note: (m) => logs.note('console', m), onNodes: () => publishOverview(), onStatus: () => publishFeedStatus() });
        await attachedFeeds.start().catch((err: Error) => logs.note('console', `feeds did not start: ${err.message}`));
        if (disposed) return;
      }
      // attached with a kubeconfig that failed, the etcd members may still be there to follow
      if (ok || cluster.startupSteps().some((st) => st.id === 'etcd' && st.state === 'done')) await startWatchFeed();
      publishOverview();
      publishFeedStatus();
      // after the cluster: a resumed step may need it
      await walkthroughs.start().catch((err: Error) => logs.note('console', `walkthroughs did not recover: ${err.message}`));
      if (!disposed) schedule.start();
    },
    async dispose() {
      disposed = true;
      void schedule.dispose(); // stops the timer at once; a backup in progress is aborted with the engine
      walkthroughs.dispose();
      health.dispose();
      watchFeed?.dispose();
      traceFeed?.dispose();
      await nodesFeed?.dispose();
      await attachedFeeds?.dispose();
      snapshots.dispose();
      await terminals?.dispose();
      await cluster.dispose();
      await logs.dispose();
    },
  };
  return { services, publishOverview };
}
