// Everything behind the bridge, composed: the supervisor and its control
// plane, member probes, the leader timeline, snapshots and restore, logs,
// the watch and trace feeds and the terminals — one handler per key of
// BridgeCalls (the compiler checks the map is complete), events through the
// host's EventSink. The Electron shell and the web host both call
// createConsoleServices; nothing here knows which one it runs under.

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { BridgeHandlers, ClusterOverview, EventSink, MemberStatus } from '../../preload/contract';
import { PILOTHOUSE_VERSION } from '../common/version';
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

export interface ConsoleServicesOptions {
  dataDir: string;
  portBase: number;
  cliPath: string;
  runtime: 'electron' | 'web';
  events: EventSink;
  /** Tests: run members of another program (Debian's etcd), faster restarts. */
  memberProgram?: Program;
  startTimeoutMs?: number;
}

export interface ConsoleServices {
  handlers: BridgeHandlers;
  start(): Promise<void>;
  dispose(): Promise<void>;
  /** For tests and the hosts' logs: the supervisor (processes, cold-start time). */
  readonly supervisor: Supervisor;
}

/** `export K=V` lines of DIR/etcdctl.env as a map (values unquoted). */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (!m) continue;
    let v = m[2]!;
    if (v.startsWith("'") && v.endsWith("'")) v = v.slice(1, -1).replace(/'\\''/g, "'");
    out[m[1]!] = v;
  }
  return out;
}

export function createConsoleServices(opts: ConsoleServicesOptions): ConsoleServices {
  const { dataDir, events } = opts;
  const logs = new LogStore(events);
  let lastOverview = '';
  let starting = true;
  let apiReady: boolean | undefined; // undefined: no API server (yet)
  let busy: string | undefined; // one cluster-wide operation at a time (failover experiment, restore)

  const supervisor = new Supervisor({
    dataDir,
    portBase: opts.portBase,
    cliPath: opts.cliPath,
    logs,
    events,
    memberProgram: opts.memberProgram,
    onComponentChange: () => publishOverview(),
  });
  const timeline = new LeaderTimeline(join(dataDir, 'console', 'leader-history.jsonl'), (e) => events.emit('leaderEvent', e));
  const health = new MemberHealth(
    {
      layout: supervisor.layout,
      client: (n) => supervisor.client(n),
      processState: (n) => supervisor.process(n).state,
      onHealthy: (n) => supervisor.process(n).markReady(),
    },
    (round) => onRound(round),
  );
  const snapshots = new SnapshotStore({
    dir: join(dataDir, 'snapshots'),
    events,
    source: () => {
      const m = health.latest()?.members.find((x) => x.healthy);
      const name = m?.name ?? supervisor.layout[0]!.name;
      return { name, client: supervisor.client(name) };
    },
  });
  let watchFeed: WatchFeed | undefined;
  let traceFeed: TraceFeed | undefined; // follows the API server's traces once the control plane runs one
  let nodesFeed: NodesFeed | undefined; // the nodes, through the API server
  let terminals: TerminalService | undefined;

  function onRound(round: ProbeRound): void {
    const nameById = new Map<string, string>();
    for (const [name, st] of round.statuses) if (st.header) nameById.set(st.header.member_id, name);
    timeline.observe(leaderSample(round.at, round.statuses.values(), (id) => nameById.get(id)));
    publishOverview();
    supervisor.controllersReady(); // a restarted controllers process counts as running again
    void supervisor.apiserverReady().then((ready) => {
      if (ready === apiReady) return;
      apiReady = ready;
      publishOverview();
    });
  }

  function currentMembers(): MemberStatus[] {
    const probed = health.latest()?.members;
    if (probed) return probed.map((m) => ({ ...m, process: supervisor.process(m.name).state }));
    return supervisor.layout.map((m) => ({
      name: m.name, id: '', endpoint: m.clientUrl, healthy: false, isLeader: false, isLearner: false, leader: '',
      raftTerm: '', raftIndex: '', raftAppliedIndex: '', dbSize: 0, dbSizeInUse: 0, version: '', alarms: [], errors: ['not probed yet'],
      process: supervisor.process(m.name).state, checkedAt: new Date().toISOString(),
    }));
  }

  function overview(): ClusterOverview {
    const clusterId = health.latest()?.clusterId;
    return buildOverview({
      mode: 'embedded',
      components: supervisor.components(),
      members: currentMembers(),
      starting,
      ...(clusterId ? { clusterId } : {}),
      ...(supervisor.apiserver ? { apiserverReady: apiReady ?? false } : {}),
      ...(nodesFeed?.nodes() ? { nodes: nodesFeed.nodes() } : {}),
    });
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
    watchFeed = new WatchFeed({ endpoints: supervisor.layout.map((m) => m.clientUrl), tls: supervisor.tlsFiles(), events });
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
    const env: Record<string, string> = existsSync(supervisor.envFile) ? parseEnvFile(readFileSync(supervisor.envFile, 'utf8')) : {};
    const kubeconfig = supervisor.apiLayout?.kubeconfig;
    if (kubeconfig && existsSync(kubeconfig)) env.KUBECONFIG = kubeconfig;
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

  const handlers: BridgeHandlers = {
    version: () => ({
      pilothouse: PILOTHOUSE_VERSION,
      runtime: opts.runtime,
      versions: Object.fromEntries(Object.entries(process.versions).filter((e): e is [string, string] => typeof e[1] === 'string')),
    }),
    overview: () => overview(),
    startupProgress: () => supervisor.startupSteps(),
    // before the PKI exists there is nothing to probe with: the placeholders say "not probed yet"
    members: async () => (supervisor.startupSteps()[0]?.state === 'done' ? (await health.probeOnce()).members : currentMembers()),
    memberAction: (req) => memberAction(actionDeps, req.member, req.action),
    componentAction: async (req) => {
      if (!supervisor.has(req.component)) return { ok: false, message: `no component ${req.component}`, command: '' };
      return memberAction(actionDeps, req.component, req.action);
    },
    leaderTimeline: () => timeline.list(),
    killLeaderExperiment: () =>
      exclusive('the kill-the-leader experiment', () =>
        killLeaderExperiment({ layout: supervisor.layout, client: (n) => supervisor.client(n), process: (n) => supervisor.process(n), timeline }),
      ),
    recentWatchEvents: (req) => watchFeed?.recent(req) ?? [],
    watchEventDetail: async (req) => (watchFeed ? watchFeed.detail(req) : null),
    recentTraces: (req) => traceFeed?.recent(req) ?? [],
    listSnapshots: () => snapshots.list(),
    takeSnapshot: () => ({ jobId: snapshots.take().jobId }),
    cancelSnapshot: (req) => snapshots.cancel(req.jobId),
    verifySnapshot: (req) => snapshots.verify(req.name),
    deleteSnapshot: (req) => snapshots.delete(req.name),
    restoreSnapshot: (req) => {
      const path = snapshots.path(req.name);
      if (!existsSync(path)) throw new Error(`stat ${path}: no such file or directory`);
      if (busy) return { started: false };
      void exclusive('a restore', async () => {
        await restoreCluster(
          // the API server goes down with the members: its watch cache holds the old cluster's revisions
          // a slow start is no reason to roll back: give the restored members as long as a first start
          { layout: supervisor.layout, client: (n) => supervisor.client(n), stopMembers: () => supervisor.stopAll(), startMembers: () => supervisor.startAll(), events, healthyTimeoutMs: opts.startTimeoutMs ?? 120_000 },
          path,
        );
        await startWatchFeed(); // the restored cluster's revisions start over from the snapshot's
      }).catch((err: Error) => logs.note('console', err.message));
      return { started: true };
    },
    openTerminal: (req) => terminalService().open(req),
    terminalInput: (req) => terminalService().input(req),
    resizeTerminal: (req) => terminalService().resize(req),
    closeTerminal: (req) => terminalService().close(req),
    logs: (req) => logs.lines(req.component, req.search, req.limit),
    logComponents: () => logs.components(),
  };

  const actionDeps = {
    layout: supervisor.layout,
    client: (n: string) => supervisor.client(n),
    process: (n: string) => supervisor.process(n),
    commandLine: (n: string) => supervisor.commandLine(n),
  };

  let disposed = false;
  return {
    handlers,
    supervisor,
    async start() {
      if (disposed) return;
      logs.attachFile('console', join(dataDir, 'logs', 'console.log'));
      const ok = await supervisor.start(opts.startTimeoutMs ?? 120_000);
      starting = false;
      if (disposed) return;
      logs.note('console', ok ? `control plane healthy; cold start ${supervisor.coldStartMs} ms` : 'control plane did not become healthy; see the startup steps and member logs');
      health.start();
      const api = supervisor.apiLayout;
      if (ok && api) {
        apiReady = true;
        traceFeed = new TraceFeed({ url: api.url, tls: { caFile: api.pki.ca.cert, certFile: api.pki.admin.cert, keyFile: api.pki.admin.key }, events });
        traceFeed.start();
        nodesFeed = new NodesFeed(api.kubeconfig, () => publishOverview(), (m) => logs.note('console', `nodes feed: ${m}`));
        void nodesFeed.start().catch((err: Error) => logs.note('console', `nodes feed did not start: ${err.message}`));
      }
      if (ok) await startWatchFeed();
      publishOverview();
    },
    async dispose() {
      disposed = true;
      health.dispose();
      watchFeed?.dispose();
      traceFeed?.dispose();
      await nodesFeed?.dispose();
      snapshots.dispose();
      await terminals?.dispose();
      await supervisor.dispose();
      await logs.dispose();
    },
  };
}
