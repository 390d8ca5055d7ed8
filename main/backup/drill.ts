// The restore drill: proves that a snapshot file restores, without touching
// the live cluster. It restores the file into a scratch 3-member cluster
// (fresh data dirs and PKI in a temp dir, free loopback ports), starts a
// scratch API server on it with the same programs and flags as the live
// plane (the control plane's Supervisor, without controllers), and checks:
//   - the file: its integrity, and its sha256 and hash against the metadata
//     saved beside it (when there is some);
//   - the restored keyspace at the snapshot's revision: total keys and keys
//     per /registry resource equal to the snapshot's facts;
//   - the API server: discovery and a full list of every listable resource.
// RTO is the time from the start of the restore to the API server having
// answered every list. RPO is how far the snapshot is behind the live
// cluster, in revisions (read from the live members' status, which writes
// nothing) and in seconds since it was taken. Everything it started is
// stopped by PID and the temp dir removed, whatever happened; the outcome
// ("restorable", or which check failed and why) goes into the metadata's
// lastDrill.
//
// Each step is a method, so the drill walkthrough (drillWalkthrough.ts) runs
// the same steps one by one with its own progress and log.

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { EtcdClient } from '../client/etcd/etcdClient';
import { RestClient } from '../client/kube/rest';
import { LogStore } from '../controlplane/logStore';
import { clusterLayout } from '../controlplane/localCluster';
import { Supervisor } from '../controlplane/supervisor';
import { restoreSnapshot } from '../etcd/snapshot/index';
import { listEveryResource, type ListedResource } from './drillApi';
import { blockFree, freePortBlock } from './drillPorts';
import { kubernetesWarning } from './backupWalkthrough';
import { inspectSnapshot, resourceOf, type SnapshotFacts } from './inspect';
import { readMetadata, recordDrill } from './metadata';
import { planeEndpoints, readLiveRevision } from './recoveryTarget';

const MEMBERS = 3;
/** Members' ports plus the API server's (clusterLayout, apiServerLayout). */
const PORTS = 2 * MEMBERS + 1;
export const DRILL_TOKEN = 'pilothouse-drill';

export interface DrillOptions {
  snapshotFile: string;
  /** The live plane's DIR: read for the RPO, never written (but for the metadata's lastDrill). */
  dataDir: string;
  /** The `pilothouse` entry script the scratch components run. */
  cliPath: string;
  /** First port of the scratch cluster (7 ports); default a free block. */
  portBase?: number;
  /** Where the scratch dir is made (default the OS temp dir). */
  scratchParent?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export interface DrillCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface DrillRpo {
  liveRevision?: number;
  revisions?: number;
  seconds?: number;
  /** Why the live cluster could not be read (the drill goes on without it). */
  unavailable?: string;
}

export interface DrillReport {
  file: string;
  verdict: 'restorable' | 'failed';
  /** The step that failed and exactly why. */
  failedStep?: string;
  reason?: string;
  facts?: SnapshotFacts;
  checks: DrillCheck[];
  rtoMs?: number;
  timings: Record<string, number>;
  rpo?: DrillRpo;
  resources?: ListedResource[];
  scratch?: { dir: string; portBase: number; removed: boolean };
  /** Whether lastDrill was written into the backup's metadata (false: it has none). */
  recorded?: boolean;
}

export class DrillFailure extends Error {}

export class RestoreDrill {
  readonly report: DrillReport;
  private sup: Supervisor | undefined;
  private logs: LogStore | undefined;
  private t0 = 0;

  constructor(private o: DrillOptions) {
    this.report = { file: o.snapshotFile, verdict: 'failed', checks: [], timings: {} };
  }

  /** Where the next step logs and what cancels it (a walkthrough step's context). */
  attach(log: (line: string) => void, signal: AbortSignal): void {
    this.o = { ...this.o, log, signal };
  }

  private log(line: string): void {
    this.o.log?.(line);
  }

  private check(name: string, ok: boolean, detail: string): void {
    this.report.checks.push({ name, ok, detail });
    this.log(`${ok ? 'ok' : 'FAILED'}: ${name}: ${detail}`);
    if (!ok) throw new DrillFailure(`${name}: ${detail}`);
  }

  private get timeoutMs(): number {
    return this.o.timeoutMs ?? 120_000;
  }

  /** The file reads whole and agrees with the metadata saved with it. */
  verify(): SnapshotFacts {
    const facts = inspectSnapshot(this.o.snapshotFile);
    this.report.facts = facts;
    this.check('integrity', true, `sha256 ${facts.sha256.slice(0, 16)}…, revision ${facts.revision}, ${facts.totalKeys} keys, ${facts.sizeBytes} bytes`);
    const notKube = kubernetesWarning(facts);
    this.check('a Kubernetes keyspace', notKube === undefined, notKube ?? `${Object.keys(facts.resources).length} resources under /registry/`);
    const meta = readMetadata(this.o.snapshotFile);
    if (meta === undefined) {
      this.log(`no metadata beside the file (${this.o.snapshotFile}.json): comparing against the file's own facts`);
      return facts;
    }
    this.check('sha256 as saved', meta.facts.sha256 === facts.sha256, meta.facts.sha256 === facts.sha256 ? 'equal to the metadata' : `file ${facts.sha256}, metadata ${meta.facts.sha256}`);
    this.check('hash as saved', meta.facts.hash === facts.hash, `file ${facts.hash}, metadata ${meta.facts.hash}`);
    this.check('keys as saved', meta.facts.totalKeys === facts.totalKeys, `file ${facts.totalKeys}, metadata ${meta.facts.totalKeys}`);
    return facts;
  }

  /** How far the snapshot is behind the live cluster: its members' status (read-only) and the time it was taken. */
  async measureRpo(): Promise<DrillRpo> {
    const facts = this.facts();
    const meta = readMetadata(this.o.snapshotFile);
    const takenAt = meta ? Date.parse(meta.takenAt) : statSync(this.o.snapshotFile).mtimeMs;
    const rpo: DrillRpo = { seconds: Math.max(0, Math.round((Date.now() - takenAt) / 1000)) };
    const ep = planeEndpoints(this.o.dataDir);
    if (ep === undefined) rpo.unavailable = `no live plane under ${this.o.dataDir} (no etcdctl.env)`;
    else {
      try {
        const live = await readLiveRevision(ep);
        rpo.liveRevision = live.revision;
        rpo.revisions = Math.max(0, live.revision - facts.revision);
      } catch (err) {
        rpo.unavailable = (err as Error).message;
      }
    }
    this.report.rpo = rpo;
    this.log(
      rpo.revisions !== undefined
        ? `RPO: ${rpo.revisions} revisions (live ${rpo.liveRevision}, snapshot ${facts.revision}), ${rpo.seconds} s since it was taken`
        : `RPO: ${rpo.seconds} s since it was taken; revisions unknown: ${rpo.unavailable}`,
    );
    return rpo;
  }

  /** Fresh data dirs for a scratch 3-member cluster on free ports, from the file. */
  async restore(): Promise<{ dir: string; portBase: number }> {
    const portBase = this.o.portBase ?? (await freePortBlock(PORTS));
    if (this.o.portBase !== undefined && !(await blockFree(portBase, PORTS))) {
      throw new DrillFailure(`ports ${portBase}..${portBase + PORTS - 1} for the scratch cluster are not all free`);
    }
    this.t0 = Date.now();
    const dir = mkdtempSync(join(this.o.scratchParent ?? tmpdir(), 'pilothouse-drill-'));
    this.report.scratch = { dir, portBase, removed: false };
    const layout = clusterLayout({ dataDir: dir, members: MEMBERS, portBase, program: { command: '', args: [] }, tls: true });
    const initialCluster = layout.map((m) => `${m.name}=${m.peerUrl}`).join(',');
    for (const m of layout) {
      await restoreSnapshot({
        snapshotPath: this.o.snapshotFile,
        dataDir: m.dataDir,
        name: m.name,
        initialCluster,
        initialAdvertisePeerUrls: [m.peerUrl],
        initialClusterToken: DRILL_TOKEN,
        skipHashCheck: false,
      });
    }
    this.report.timings.restoreMs = Date.now() - this.t0;
    this.log(`restored ${MEMBERS} members into ${dir} (ports ${portBase}..${portBase + PORTS - 1}) in ${this.report.timings.restoreMs} ms`);
    return { dir, portBase };
  }

  /** The scratch members and API server, until every member serves and /readyz answers. */
  async start(): Promise<void> {
    const scratch = this.scratch();
    this.logs = new LogStore(undefined);
    this.sup = new Supervisor({ dataDir: scratch.dir, portBase: scratch.portBase, cliPath: this.o.cliPath, logs: this.logs, members: MEMBERS, apiserver: true, controllers: false });
    const ok = await this.sup.start(this.timeoutMs);
    if (!ok) {
      const failed = this.sup.startupSteps().find((s) => s.state === 'failed');
      throw new DrillFailure(`the scratch cluster did not start: ${failed ? `${failed.label}: ${failed.detail}` : 'timed out'}`);
    }
    this.report.timings.serveMs = Date.now() - this.t0;
    const pids = [...this.sup.layout.map((m) => this.sup!.process(m.name).pid), this.sup.apiserver?.pid].join(', ');
    this.log(`scratch members and API server ready in ${this.report.timings.serveMs} ms from the start of the restore (pids ${pids})`);
  }

  /** Total keys and keys per resource at the snapshot's revision, read from the scratch cluster. */
  async checkCounts(): Promise<void> {
    const facts = this.facts();
    const scratch = this.scratch();
    const pki = join(scratch.dir, 'pki');
    const etcd = new EtcdClient({
      endpoints: this.sup!.layout.map((m) => m.clientUrl),
      tls: { caFile: join(pki, 'ca.crt'), certFile: join(pki, 'client.crt'), keyFile: join(pki, 'client.key') },
    });
    try {
      const all = await etcd.range({ key: Buffer.from([0]), rangeEnd: Buffer.from([0]), keysOnly: true, revision: BigInt(facts.revision) });
      const resources: Record<string, number> = {};
      let other = 0;
      for (const kv of all.kvs) {
        const r = resourceOf(kv.key.toString('latin1'));
        if (r === undefined) other++;
        else resources[r] = (resources[r] ?? 0) + 1;
      }
      this.check('total keys', all.kvs.length === facts.totalKeys, `${all.kvs.length} restored at revision ${facts.revision}, snapshot ${facts.totalKeys}`);
      const names = [...new Set([...Object.keys(resources), ...Object.keys(facts.resources)])].sort();
      const differ = names.filter((n) => (resources[n] ?? 0) !== (facts.resources[n] ?? 0));
      this.check(
        'keys per resource',
        differ.length === 0 && other === facts.nonRegistryKeys,
        differ.length === 0 && other === facts.nonRegistryKeys
          ? `${names.length} resources, ${other} other keys, all equal`
          : [...differ.map((n) => `${n}: restored ${resources[n] ?? 0}, snapshot ${facts.resources[n] ?? 0}`), ...(other !== facts.nonRegistryKeys ? [`non-registry keys: restored ${other}, snapshot ${facts.nonRegistryKeys}`] : [])].join('; '),
      );
    } finally {
      etcd.close();
    }
  }

  /** Discovery and a full list of every listable resource through the scratch API server; RTO ends here. */
  async listResources(onResource?: (r: ListedResource, done: number, total: number) => void): Promise<ListedResource[]> {
    const kc = new KubeConfig();
    kc.loadFromFile(join(this.scratch().dir, 'kubeconfig'));
    const rest = await RestClient.fromKubeConfig(kc, 'pilothouse-drill');
    try {
      const t = Date.now();
      const listed = await listEveryResource(rest, this.o.signal, onResource);
      this.report.timings.listMs = Date.now() - t;
      this.report.rtoMs = Date.now() - this.t0;
      this.report.resources = listed;
      const items = listed.reduce((n, r) => n + r.items, 0);
      this.check('every resource lists', true, `${listed.length} resources, ${items} objects listed in ${this.report.timings.listMs} ms`);
      this.log(`RTO: ${this.report.rtoMs} ms (restore to every list answered)`);
      return listed;
    } finally {
      rest.close();
    }
  }

  /** Stops every scratch process (by PID, SIGKILL after the grace period) and removes the scratch dir. */
  async teardown(): Promise<void> {
    const pids = this.sup ? [...this.sup.layout.map((m) => this.sup!.process(m.name).pid), this.sup.apiserver?.pid].filter((p): p is number => p !== undefined) : [];
    await this.sup?.dispose();
    await this.logs?.dispose();
    this.sup = undefined;
    this.logs = undefined;
    const scratch = this.report.scratch;
    if (scratch && !scratch.removed) {
      rmSync(scratch.dir, { recursive: true, force: true });
      scratch.removed = true;
    }
    const alive = pids.filter(isAlive);
    if (alive.length > 0) throw new Error(`scratch processes still alive after the teardown: ${alive.join(', ')}`);
    if (scratch) this.log(`scratch cluster stopped${pids.length ? ` (pids ${pids.join(', ')})` : ''} and ${scratch.dir} removed`);
  }

  /** Writes lastDrill into the backup's metadata; false when it has none. */
  record(now = new Date()): boolean {
    const r = this.report;
    if (readMetadata(this.o.snapshotFile) === undefined) {
      r.recorded = false;
      return false;
    }
    recordDrill(this.o.snapshotFile, {
      at: now.toISOString(),
      verdict: r.verdict,
      ...(r.rtoMs !== undefined ? { rtoMs: r.rtoMs } : {}),
      ...(r.reason !== undefined ? { reason: r.reason } : {}),
    });
    r.recorded = true;
    return true;
  }

  /** Marks the drill failed at a step with the reason. */
  fail(step: string, err: unknown): void {
    this.report.verdict = 'failed';
    this.report.failedStep = step;
    this.report.reason = `${step}: ${(err as Error).message}`;
  }

  private facts(): SnapshotFacts {
    if (!this.report.facts) throw new Error('the snapshot was not verified first');
    return this.report.facts;
  }

  private scratch(): { dir: string; portBase: number } {
    if (!this.report.scratch) throw new Error('the snapshot was not restored first');
    return this.report.scratch;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every step in order; the scratch cluster is torn down and the outcome recorded whatever happens. */
export async function runDrill(o: DrillOptions): Promise<DrillReport> {
  const d = new RestoreDrill(o);
  const steps: [string, () => unknown][] = [
    ['verify', () => d.verify()],
    ['rpo', () => d.measureRpo()],
    ['restore', () => d.restore()],
    ['start', () => d.start()],
    ['counts', () => d.checkCounts()],
    ['list', () => d.listResources()],
  ];
  try {
    for (const [name, run] of steps) {
      if (o.signal?.aborted) throw new Error('cancelled');
      try {
        await run();
      } catch (err) {
        d.fail(name, err);
        break;
      }
    }
    if (d.report.failedStep === undefined) d.report.verdict = 'restorable';
  } finally {
    try {
      await d.teardown();
    } catch (err) {
      if (d.report.failedStep === undefined) d.fail('teardown', err);
    }
    try {
      d.record();
    } catch (err) {
      o.log?.(`could not record the drill in the metadata: ${(err as Error).message}`);
    }
  }
  return d.report;
}
