// The embedded control plane under DIR: the members `pilothouse up` would run
// (same layout, flags and PKI, from localCluster.ts) and the API server (its
// layout, flags, kube PKI and kubeconfig from apiserverLayout.ts), each a
// SupervisedProcess (`process.execPath cliPath etcd|apiserver ...` with
// ELECTRON_RUN_AS_NODE=1), their output in the LogStore and
// DIR/logs/<name>.log, one MemberClient per member for the console's own
// calls, and the first-start checklist.
//
// The API server starts with the members, so its own start-up overlaps their
// election; it retries etcd until a leader answers and is ready when /readyz
// answers 200. The controllers (`pilothouse controllers --data-dir DIR`:
// scheduler, controller manager, simulated kubelets) start once every member
// has booted, wait for /readyz themselves, and the plane is usable once they
// hold their Leases, the aggregated roles have their rules and every node is
// Ready (readiness.ts). Both `pilothouse up` and the
// console run the plane through this class; restartInTurn (rollingRestart.ts)
// restarts every component in turn, e.g. after a certificate renewal. One
// component at a time is started, stopped, restarted, paused, resumed or
// given another program or flags (replaceComponent: an upgrade walkthrough
// swaps a member's binary) by its id.
//
// The supervisor only starts, stops and watches processes; what the members
// say about themselves (leader, terms, health) is memberHealth.ts's business.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ComponentStatus, EventSink, StartupStep } from '../../preload/contract';
import { ensureClusterPki, privateDir, writeWhole } from '../common/pki/clusterPki';
import { renewExpiring, RENEW_WITHIN_DAYS } from '../common/pki/renewal';
import { apiServerFlags, apiServerLayout, apiServerProgram, probeReadyz, writeKubeconfig, type ApiServerLayout } from './apiserverLayout';
import type { ClientPem } from '../common/tlsChannel';
import { CONTROLLER_NODES, controllersLayout, controllersProgram, selfProgram } from './programs';
import { restartInTurn, type RollingRestartReport } from './rollingRestart';
import { leaderTerm, waitApiServerReady, waitMembersHealthy, waitUsable } from './waits';
import { clusterLayout, etcdctlEnv, memberFlags, pkiFor, type LocalClusterOptions, type MemberLayout } from './localCluster';
import type { Program } from './program';
import type { RunningPlane } from './runningPlane';
import { MemberClient } from '../client/etcd/memberClient';
import type { LogStore } from './logStore';
import { planeSteps, StartupSteps } from './startupSteps';
import { SupervisedProcess, type Clock, type CommandLineChange, type LifecycleEvent, type Spawner } from './supervisedProcess';
import type { RestartPolicyOptions } from './restartPolicy';
import { effectiveCommandLine, readOverrides, recordOverride, type CommandLine, type ComponentOverrides } from './componentOverrides';

export interface SupervisorOptions {
  dataDir: string;
  portBase: number;
  cliPath: string;
  logs: LogStore;
  events?: EventSink;
  members?: number;
  /** The member program; default `process.execPath cliPath etcd`. */
  memberProgram?: Program;
  /** Run the API server too (default true). */
  apiserver?: boolean;
  /** Run the controllers too, once the API server is ready (default: whenever the API server runs). */
  controllers?: boolean;
  /** Simulated nodes of the controllers (their --nodes); their default when absent. */
  nodes?: number;
  /** Called whenever a component's state changes. */
  onComponentChange?: (status: ComponentStatus) => void;
  /** Called on every spawn and exit of a component, with what the supervisor does next. */
  onLifecycle?: (event: LifecycleEvent) => void;
  /** Called on every change of a startup step. */
  onStep?: (step: StartupStep) => void;
  spawner?: Spawner;
  clock?: Clock;
  restart?: RestartPolicyOptions;
  stopGraceMs?: number;
}

const POLL_MS = 50;

export class Supervisor implements RunningPlane {
  readonly layout: MemberLayout[];
  readonly clusterOpts: LocalClusterOptions;
  readonly members = new Map<string, SupervisedProcess>();
  /** The API server's process and place, when the control plane runs one. */
  apiserver: SupervisedProcess | undefined;
  /** The controllers' process, when the control plane runs them. */
  controllers: SupervisedProcess | undefined;
  private apiLayoutValue: ApiServerLayout | undefined;
  readonly steps: StartupSteps;
  /** Cold start to every member answering a linearizable read, once measured. */
  coldStartMs: number | undefined;
  private readonly clients = new Map<string, MemberClient>();
  private pem: ClientPem | undefined;
  /** Set by dispose(): every wait ends. */
  disposed = false;
  /** Certificates renewed at the last start because they were within RENEW_WITHIN_DAYS of expiry. */
  renewedAtStart: string[] = [];
  private rolling: Promise<boolean> | undefined;
  /** Each component's command line as the layout gives it (what an override is recorded against). */
  private readonly layoutCommandLines = new Map<string, CommandLine>();
  private readonly overrides: ComponentOverrides;

  constructor(private readonly o: SupervisorOptions) {
    this.overrides = this.loadOverrides();
    this.clusterOpts = {
      dataDir: o.dataDir,
      members: o.members ?? 3,
      portBase: o.portBase,
      program: o.memberProgram ?? selfProgram(o.cliPath),
      tls: true,
    };
    this.layout = clusterLayout(this.clusterOpts);
    const steps = planeSteps({ apiserver: o.apiserver !== false, controllers: o.apiserver !== false && o.controllers !== false });
    this.steps = new StartupSteps(steps, o.events, undefined, o.onStep);
    for (const m of this.layout) {
      this.members.set(m.name, this.supervised(m.name, 'etcd', m.clientUrl, this.clusterOpts.program, memberFlags(m, this.layout, this.clusterOpts), m.logFile));
    }
  }

  private loadOverrides(): ComponentOverrides {
    try {
      return readOverrides(this.o.dataDir);
    } catch (err) {
      this.o.logs.note('console', `cannot read the recorded command lines (${(err as Error).message}); running the layout's`);
      return {};
    }
  }

  /** A component run with the command line an upgrade last gave it (componentOverrides.ts), else the layout's. */
  private supervised(id: string, kind: ComponentStatus['kind'], url: string, program: Program, args: string[], logFile: string): SupervisedProcess {
    this.o.logs.attachFile(id, logFile);
    const layout = { program, args };
    this.layoutCommandLines.set(id, layout);
    const { commandLine, ignored } = effectiveCommandLine(this.overrides, id, layout);
    if (ignored) this.o.logs.note(id, ignored);
    else if (commandLine !== layout) this.o.logs.note(id, `running the command line recorded in ${join(this.o.dataDir, 'components.json')}: ${commandLine.program.command} ${[...commandLine.program.args, ...commandLine.args].join(' ')}`);
    return new SupervisedProcess({
      id,
      kind,
      url,
      program: commandLine.program,
      args: commandLine.args,
      logs: this.o.logs,
      onChange: this.o.onComponentChange,
      onLifecycle: this.o.onLifecycle,
      spawner: this.o.spawner,
      clock: this.o.clock,
      restart: this.o.restart,
      stopGraceMs: this.o.stopGraceMs,
    });
  }

  /** The controllers' flags and log file. */
  get controllersLayout(): { args: string[]; logFile: string } {
    return controllersLayout(this.o.dataDir, this.o.nodes);
  }

  /** Where the API server listens and its PKI (created by start()); undefined without one. */
  get apiLayout(): ApiServerLayout | undefined {
    return this.apiLayoutValue;
  }

  get envFile(): string {
    return join(this.o.dataDir, 'etcdctl.env');
  }

  /** PEM of the console's client certificate (the etcdctl one), once the PKI exists. */
  tlsPem(): ClientPem {
    if (this.pem) return this.pem;
    const pki = pkiFor(this.clusterOpts, this.layout);
    return (this.pem = { ca: readFileSync(pki.ca.cert), cert: readFileSync(pki.client.cert), key: readFileSync(pki.client.key) });
  }

  /** The CA and client certificate files (for the watch feed and terminals). */
  tlsFiles(): { caFile: string; certFile: string; keyFile: string } {
    const pki = pkiFor(this.clusterOpts, this.layout);
    return { caFile: pki.ca.cert, certFile: pki.client.cert, keyFile: pki.client.key };
  }

  client(name: string): MemberClient {
    const existing = this.clients.get(name);
    if (existing) return existing;
    const m = this.memberLayout(name);
    const c = new MemberClient(m.clientUrl, this.tlsPem());
    this.clients.set(name, c);
    return c;
  }

  /** The program and flags a component runs with (after a replaceComponent, the new ones). */
  commandLine(id: string): { program: Program; args: string[] } {
    return this.process(id).commandLine();
  }

  memberLayout(name: string): MemberLayout {
    const m = this.layout.find((x) => x.name === name);
    if (!m) throw new Error(`no member ${name}`);
    return m;
  }

  process(id: string): SupervisedProcess {
    const p = this.members.get(id) ?? (id === 'apiserver' ? this.apiserver : id === 'controllers' ? this.controllers : undefined);
    if (!p) throw new Error(`no component ${id}`);
    return p;
  }

  has(id: string): boolean {
    return this.members.has(id) || (id === 'apiserver' && this.apiserver !== undefined) || (id === 'controllers' && this.controllers !== undefined);
  }

  /** Members, then the API server, then the controllers. */
  private processes(): SupervisedProcess[] {
    return [...this.members.values(), ...(this.apiserver ? [this.apiserver] : []), ...(this.controllers ? [this.controllers] : [])];
  }

  components(): ComponentStatus[] {
    return this.processes().map((p) => p.status());
  }

  /** The user's start of one component (also clears its crash history); no-op while it runs. */
  startComponent(id: string): void {
    this.process(id).start();
  }

  /** SIGTERM, SIGKILL after the grace period; the component stays down until started. */
  stopComponent(id: string): Promise<void> {
    return this.process(id).stop();
  }

  restartComponent(id: string): Promise<void> {
    return this.process(id).restart();
  }

  /** SIGSTOP; false when the component is not starting or running. */
  pauseComponent(id: string): boolean {
    return this.process(id).pause();
  }

  /** SIGCONT; false when the component is not paused. */
  resumeComponent(id: string): boolean {
    return this.process(id).resume();
  }

  /** The command line the layout gives a component (before any upgrade). */
  layoutCommandLine(id: string): CommandLine {
    const c = this.layoutCommandLines.get(id);
    if (!c) throw new Error(`no component ${id}`);
    return c;
  }

  /**
   * Runs one component with another program or flags, keeping its id, logs
   * and restart policy (restarted if it ran), and records the new command
   * line under DIR so the next start of the plane runs it too.
   */
  async replaceComponent(id: string, change: CommandLineChange): Promise<void> {
    const p = this.process(id);
    await p.replace(change);
    recordOverride(this.o.dataDir, id, p.commandLine(), this.layoutCommandLine(id));
  }

  /** The API server process, created once its PKI exists. */
  private async setUpApiServer(): Promise<void> {
    if (this.o.apiserver === false || this.apiserver) return;
    const layout = await apiServerLayout(this.o.dataDir, this.o.portBase, this.layout.length, pkiFor(this.clusterOpts, this.layout));
    writeKubeconfig(layout);
    this.apiLayoutValue = layout;
    this.apiserver = this.supervised('apiserver', 'apiserver', layout.url, apiServerProgram(this.o.cliPath), apiServerFlags(layout, this.layout), layout.logFile);
    if (this.o.controllers === false) return;
    const ctl = this.controllersLayout;
    this.controllers = this.supervised('controllers', 'controllers', layout.url, controllersProgram(this.o.cliPath), ctl.args, ctl.logFile);
  }

  /**
   * The controllers have no health endpoint: a live process (after a start or
   * a restart) counts as running. Undefined when there are no controllers.
   */
  controllersReady(): boolean | undefined {
    if (!this.controllers) return undefined;
    if (!this.controllers.running) return false;
    this.controllers.markReady();
    return true;
  }

  /** One /readyz probe; undefined when there is no API server. */
  async apiserverReady(timeoutMs = 800): Promise<boolean | undefined> {
    if (!this.apiLayoutValue || !this.apiserver) return undefined;
    if (!this.apiserver.running) return false;
    try {
      const ok = (await probeReadyz(this.apiLayoutValue, timeoutMs)) === 200;
      if (ok) this.apiserver.markReady();
      return ok;
    } catch {
      return false;
    }
  }

  startupSteps(): StartupStep[] {
    return this.steps.list();
  }

  /**
   * First start: PKI, members, then waits (up to timeoutMs) for a leader and
   * for every member to serve a linearizable read. Resolves false on timeout
   * (the members keep running and the supervisor keeps watching them).
   */
  async start(timeoutMs = 60_000): Promise<boolean> {
    const t0 = Date.now();
    const deadline = t0 + timeoutMs;
    this.steps.begin('pki', join(this.o.dataDir, 'pki'));
    try {
      privateDir(this.o.dataDir);
      const pki = await ensureClusterPki(pkiFor(this.clusterOpts, this.layout).dir, this.layout.map((m) => m.name));
      this.renewedAtStart = await renewExpiring(this.o.dataDir, RENEW_WITHIN_DAYS);
      writeWhole(this.envFile, etcdctlEnv(this.layout, pki), 0o600);
      this.steps.done('pki', pki.dir);
    } catch (err) {
      this.steps.fail('pki', (err as Error).message);
      return false;
    }

    if (this.disposed) return false;
    this.steps.begin('members', this.layout.map((m) => m.clientUrl).join(', '));
    this.startMembers();
    this.steps.done('members', this.layout.map((m) => `${m.name} pid ${this.process(m.name).pid ?? '?'}`).join(', '));
    // The members need only the cluster PKI: the API server's (a dozen more
    // keys on a first start) and its kubeconfig are made while they load.
    try {
      await this.setUpApiServer();
    } catch (err) {
      this.steps.fail('apiserver', `API server PKI: ${(err as Error).message}`);
      return false;
    }
    // The API server boots (loads, reads its PKI, builds its registry) while
    // the members elect a leader; it retries etcd until one answers.
    const apiReady = this.apiserver ? this.startApiServer(deadline) : Promise.resolve(true);

    this.steps.begin('leader');
    const leader = await this.pollUntil(deadline, async () => {
      // The controllers boot (load, make their PKI and clients) while the
      // members elect and the API server finishes, then wait for /readyz.
      // Not before every member has said something (loaded, read its data
      // dir): on two CPUs they would slow the members' boot; the election
      // after it mostly waits out its randomized timeout, with CPU to spare.
      if (this.controllers?.state === 'stopped' && this.layout.every((m) => this.o.logs.hasOwnOutput(m.name))) this.controllers.start();
      return leaderTerm(this);
    });
    if (leader === undefined) {
      this.steps.fail('leader', `no leader within ${timeoutMs} ms; see the members' logs`);
      return false;
    }
    this.steps.done('leader', leader);
    this.controllers?.start();

    this.steps.begin('quorum');
    const ready = new Set<string>();
    const all = await waitMembersHealthy(this, this.layout.map((m) => m.name), deadline, ready);
    if (!all) {
      this.steps.fail('quorum', `${ready.size}/${this.layout.length} members answered within ${timeoutMs} ms`);
      return false;
    }
    this.steps.done('quorum', `${ready.size}/${this.layout.length} members healthy in ${Date.now() - t0} ms`);
    if (!(await apiReady)) return false;
    if (this.controllers && !(await this.startControllers(deadline))) return false;
    this.coldStartMs = Date.now() - t0;
    this.o.logs.note('console', `control plane ready: cold start ${this.coldStartMs} ms`);
    return true;
  }

  /** Starts the API server and waits for /readyz (its startup step). */
  private async startApiServer(deadline: number): Promise<boolean> {
    const api = this.apiserver!;
    api.start();
    this.steps.begin('apiserver', this.apiLayoutValue!.url);
    const r = await waitApiServerReady(this, deadline);
    if (r.outcome !== 'ready') {
      this.steps.fail('apiserver', r.outcome === 'exited' ? `the API server exited; see ${this.apiLayoutValue!.logFile}` : `not ready in time (${r.why})`);
      return false;
    }
    this.steps.done('apiserver', `${this.apiLayoutValue!.url} (pid ${api.pid})`);
    return true;
  }

  /** Starts the controllers if they are not yet (the API server is ready) and waits until the plane is usable. */
  private async startControllers(deadline: number): Promise<boolean> {
    const ctl = this.controllers!;
    const logFile = this.controllersLayout.logFile;
    ctl.start();
    this.steps.begin('controllers', logFile);
    const why = await waitUsable(this, deadline);
    if (this.disposed || why !== undefined) {
      this.steps.fail('controllers', why ?? 'stopped');
      return false;
    }
    this.steps.done('controllers', `scheduler, controller manager and ${this.nodes} Ready nodes (pid ${ctl.pid}); log ${logFile}`);
    return true;
  }

  /**
   * Restarts every running component in turn — members one at a time
   * (followers first, the leader last, each until it serves again), then the
   * API server (until /readyz), then the controllers (until usable) — e.g.
   * to load renewed certificates. One at a time: a second call while one
   * runs gets the same promise.
   */
  restartInTurn(report: RollingRestartReport = () => undefined, timeoutMs = 60_000): Promise<boolean> {
    return (this.rolling ??= restartInTurn(this, report, timeoutMs).finally(() => (this.rolling = undefined)));
  }

  /** Polls probe every everyMs until it answers (not undefined), the deadline passes or the supervisor is disposed. */
  async pollUntil<T>(deadline: number, probe: () => Promise<T | undefined>, everyMs = POLL_MS): Promise<T | undefined> {
    while (!this.disposed && Date.now() < deadline) {
      const v = await probe();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, everyMs));
    }
    return undefined;
  }

  /** Simulated nodes the controllers run. */
  get nodes(): number {
    return this.o.nodes ?? CONTROLLER_NODES;
  }

  startMembers(): void {
    for (const p of this.members.values()) p.start();
  }

  /** SIGTERM every member at once (SIGKILL after the grace period). */
  async stopMembers(): Promise<void> {
    await Promise.all([...this.members.values()].map((p) => p.stop()));
  }

  /** The controllers, then the API server (its clients see it go), then the members. */
  async stopAll(): Promise<void> {
    await this.controllers?.stop();
    await this.apiserver?.stop();
    await this.stopMembers();
  }

  /** Members, then the API server (it retries etcd until the members answer), then the controllers (they retry the API server). */
  startAll(): void {
    this.startMembers();
    this.apiserver?.start();
    this.controllers?.start();
  }

  /** Stops every child and closes the clients; resolves once all are reaped. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.controllers?.close();
    await this.apiserver?.close();
    await Promise.all([...this.members.values()].map((p) => p.close()));
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}
