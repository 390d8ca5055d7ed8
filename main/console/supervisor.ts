// The embedded control plane under DIR: the members `pilothouse up` would run
// (same layout, flags and PKI, from localCluster.ts), each a SupervisedProcess
// (`process.execPath cliPath etcd ...` with ELECTRON_RUN_AS_NODE=1), their
// output in the LogStore and DIR/logs/<name>.log, one MemberClient per member
// for the console's own calls, and the first-start checklist.
//
// The supervisor only starts, stops and watches processes; what the members
// say about themselves (leader, terms, health) is memberHealth.ts's business.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ComponentStatus, EventSink, StartupStep } from '../../preload/contract';
import { ensureClusterPki } from '../common/pki/clusterPki';
import type { ClientPem } from '../common/tlsChannel';
import { selfProgram } from '../common/cli/upCommand';
import { clusterLayout, etcdctlEnv, memberFlags, pkiFor, type LocalClusterOptions, type MemberLayout } from './localCluster';
import type { Program } from './memberProcess';
import { MemberClient } from './memberClient';
import type { LogStore } from './logStore';
import { StartupSteps } from './startupSteps';
import { SupervisedProcess, type Clock, type Spawner } from './supervisedProcess';
import type { RestartPolicyOptions } from './restartPolicy';

export interface SupervisorOptions {
  dataDir: string;
  portBase: number;
  cliPath: string;
  logs: LogStore;
  events?: EventSink;
  members?: number;
  /** The member program; default `process.execPath cliPath etcd`. */
  memberProgram?: Program;
  /** Called whenever a component's state changes. */
  onComponentChange?: (status: ComponentStatus) => void;
  spawner?: Spawner;
  clock?: Clock;
  restart?: RestartPolicyOptions;
  stopGraceMs?: number;
}

export const STARTUP_STEPS = [
  { id: 'pki', label: 'Certificates (CA, member, client)' },
  { id: 'members', label: 'Starting etcd members' },
  { id: 'leader', label: 'Leader elected' },
  { id: 'quorum', label: 'Every member serves linearizable reads' },
];

const POLL_MS = 50;

export class Supervisor {
  readonly layout: MemberLayout[];
  readonly clusterOpts: LocalClusterOptions;
  readonly members = new Map<string, SupervisedProcess>();
  readonly steps: StartupSteps;
  /** Cold start to every member answering a linearizable read, once measured. */
  coldStartMs: number | undefined;
  private readonly clients = new Map<string, MemberClient>();
  private pem: ClientPem | undefined;
  private disposed = false;

  constructor(private readonly o: SupervisorOptions) {
    this.clusterOpts = {
      dataDir: o.dataDir,
      members: o.members ?? 3,
      portBase: o.portBase,
      program: o.memberProgram ?? selfProgram(o.cliPath),
      tls: true,
    };
    this.layout = clusterLayout(this.clusterOpts);
    this.steps = new StartupSteps(STARTUP_STEPS, o.events);
    for (const m of this.layout) {
      const proc = new SupervisedProcess({
        id: m.name,
        kind: 'etcd',
        url: m.clientUrl,
        program: this.clusterOpts.program,
        args: memberFlags(m, this.layout, this.clusterOpts),
        logs: o.logs,
        onChange: o.onComponentChange,
        spawner: o.spawner,
        clock: o.clock,
        restart: o.restart,
        stopGraceMs: o.stopGraceMs,
      });
      o.logs.attachFile(m.name, m.logFile);
      this.members.set(m.name, proc);
    }
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

  /** The etcd flags a member runs with. */
  memberArgs(name: string): string[] {
    return memberFlags(this.memberLayout(name), this.layout, this.clusterOpts);
  }

  memberLayout(name: string): MemberLayout {
    const m = this.layout.find((x) => x.name === name);
    if (!m) throw new Error(`no member ${name}`);
    return m;
  }

  process(id: string): SupervisedProcess {
    const p = this.members.get(id);
    if (!p) throw new Error(`no component ${id}`);
    return p;
  }

  components(): ComponentStatus[] {
    return [...this.members.values()].map((p) => p.status());
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
      mkdirSync(this.o.dataDir, { recursive: true });
      const pki = ensureClusterPki(pkiFor(this.clusterOpts, this.layout).dir, this.layout.map((m) => m.name));
      writeFileSync(this.envFile, etcdctlEnv(this.layout, pki));
      this.steps.done('pki');
    } catch (err) {
      this.steps.fail('pki', (err as Error).message);
      return false;
    }

    if (this.disposed) return false;
    this.steps.begin('members', this.layout.map((m) => m.clientUrl).join(', '));
    this.startMembers();
    this.steps.done('members', this.layout.map((m) => `${m.name} pid ${this.process(m.name).pid ?? '?'}`).join(', '));

    this.steps.begin('leader');
    const leader = await this.pollUntil(deadline, async () => {
      const answers = await Promise.all(this.layout.map((m) => this.client(m.name).status(500).catch(() => undefined)));
      const st = answers.find((a) => a !== undefined && a.leader !== '0');
      return st ? `term ${st.raftTerm}` : undefined;
    });
    if (leader === undefined) {
      this.steps.fail('leader', `no leader within ${timeoutMs} ms; see the members' logs`);
      return false;
    }
    this.steps.done('leader', leader);

    this.steps.begin('quorum');
    const ready = new Set<string>();
    const all = await this.pollUntil(deadline, async () => {
      await Promise.all(
        this.layout
          .filter((m) => !ready.has(m.name))
          .map(async (m) => {
            try {
              await this.client(m.name).healthRead(1_000);
              ready.add(m.name);
              this.process(m.name).markReady();
            } catch {
              // not yet
            }
          }),
      );
      return ready.size === this.layout.length ? `${ready.size}/${this.layout.length}` : undefined;
    });
    if (all === undefined) {
      this.steps.fail('quorum', `${ready.size}/${this.layout.length} members answered within ${timeoutMs} ms`);
      return false;
    }
    this.coldStartMs = Date.now() - t0;
    this.steps.done('quorum', `${all} members healthy; cold start ${this.coldStartMs} ms`);
    return true;
  }

  private async pollUntil<T>(deadline: number, probe: () => Promise<T | undefined>): Promise<T | undefined> {
    while (!this.disposed && Date.now() < deadline) {
      const v = await probe();
      if (v !== undefined) return v;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    return undefined;
  }

  startMembers(): void {
    for (const p of this.members.values()) p.start();
  }

  /** SIGTERM every member at once (SIGKILL after the grace period). */
  async stopMembers(): Promise<void> {
    await Promise.all([...this.members.values()].map((p) => p.stop()));
  }

  /** Stops every child and closes the clients; resolves once all are reaped. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.members.values()].map((p) => p.close()));
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}
