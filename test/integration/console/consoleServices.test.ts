// The console services against a real embedded control plane (3 Pilothouse
// members with mutual TLS, `node out/main/cli.js etcd`, and the API server,
// `node out/main/cli.js apiserver`), through the same
// BridgeHandlers the Electron shell and the web host call: cold start to
// healthy, logs, member probes, pause/resume, a crash (kill -9 from outside)
// restarted by the supervisor, kill-the-leader, move-leader, defrag,
// snapshot and restore into a new cluster, and nothing left running after
// dispose; kubectl and the trace feed through the supervised API server.
// Ports 28500–28506.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeEventName, BridgeEvents, EventSink, RestoreProgress, SnapshotProgress } from '../../../preload/contract';
import { createConsoleServices, type ConsoleServices } from '../../../main/console/consoleServices';
import { CLI_JS } from '../../support/cluster';
import { etcdctl, parseJsonWithBigIds } from '../../support/etcdctl';
import { eventually } from '../../support/waitFor';

const PORT_BASE = 28500;

class Sink implements EventSink {
  readonly events: { name: BridgeEventName; payload: unknown; at: number }[] = [];
  emit<E extends BridgeEventName>(name: E, payload: BridgeEvents[E]): void {
    this.events.push({ name, payload, at: Date.now() });
  }
  of<E extends BridgeEventName>(name: E): BridgeEvents[E][] {
    return this.events.filter((e) => e.name === name).map((e) => e.payload as BridgeEvents[E]);
  }
}

/** promise, or an error naming `what` once ms pass (so a hang says which step hung). */
async function within<T>(what: string, ms: number, promise: T | Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

let dir: string;
let sink: Sink;
let svc: ConsoleServices;
let coldStartMs = 0;
const pids = new Set<number>();

function etcdClient(): Etcd3 {
  const pki = join(dir, 'pki');
  return new Etcd3({
    hosts: svc.supervisor.layout.map((m) => m.clientUrl),
    credentials: {
      rootCertificate: readFileSync(join(pki, 'ca.crt')),
      certChain: readFileSync(join(pki, 'client.crt')),
      privateKey: readFileSync(join(pki, 'client.key')),
    },
  });
}

const h = () => svc.handlers;

function kubectl(args: string[]): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/kubectl', args, { env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}
const notePids = () => svc.supervisor.components().forEach((c) => c.pid && pids.add(c.pid));

// The console's terminals run $SHELL; /bin/sh, not a login bash: a login bash runs the machine's profile, which may be slow (pyenv) and, when a test ends the shell mid-way, can leave a lock that stalls every later shell.
process.env.SHELL = '/bin/sh';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pilothouse-console-'));
  sink = new Sink();
  svc = createConsoleServices({ dataDir: dir, portBase: PORT_BASE, cliPath: CLI_JS, runtime: 'web', events: sink, startTimeoutMs: 120_000 });
  const t0 = Date.now();
  await svc.start();
  coldStartMs = Date.now() - t0;
  notePids();
}, 150_000);

afterAll(async () => {
  // Bounded, so the processes below are reaped even if dispose hangs.
  await within('dispose in afterAll', 30_000, svc?.dispose() ?? Promise.resolve()).catch((e: unknown) => console.error(String(e)));
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('console services on an embedded control plane', () => {
  it('starts to healthy, with every startup step done', async () => {
    const steps = await h().startupProgress();
    console.log(`cold start (PKI + 3 members + API server ready): ${coldStartMs} ms (supervisor: ${svc.supervisor.coldStartMs} ms); steps ${steps.map((s) => `${s.id} ${s.elapsedMs} ms`).join(', ')}`);
    expect(steps.map((s) => [s.id, s.state])).toEqual([['pki', 'done'], ['members', 'done'], ['leader', 'done'], ['quorum', 'done'], ['apiserver', 'done'], ['controllers', 'done']]);
    expect(sink.of('startupProgress').length).toBeGreaterThan(4);
    // The start resolves once every node is Ready and only then starts the nodes
    // feed, so the summary gains its nodes clause a moment later: wait for it.
    const o = await eventually('healthy overview listing the 3 nodes', async () => {
      const x = await h().overview();
      return x.health === 'healthy' && x.nodes?.length === 3 && x;
    }, { timeoutMs: 30_000, intervalMs: 50 });
    expect(o.summary).toMatch(/^healthy: 3\/3 members, leader m\d \(term \d+\), API server ready, 3\/3 nodes Ready$/);
    expect(o.clusterId).toMatch(/^[0-9a-f]{16}$/);
    expect(o.components.map((c) => [c.id, c.kind, c.state])).toEqual([
      ['m1', 'etcd', 'running'], ['m2', 'etcd', 'running'], ['m3', 'etcd', 'running'], ['apiserver', 'apiserver', 'running'],
      ['controllers', 'controllers', 'running'],
    ]);
    expect(o.components[3]!.url).toBe(`https://127.0.0.1:${PORT_BASE + 6}`);
    expect(sink.of('overview').length).toBeGreaterThan(0);
  });

  it('probes members like etcdctl endpoint status', async () => {
    const members = await h().members();
    expect(members.map((m) => m.name)).toEqual(['m1', 'm2', 'm3']);
    for (const m of members) {
      expect(m.id).toMatch(/^[0-9a-f]{16}$/);
      expect(m.healthy).toBe(true);
      expect(m.endpoint).toBe(`https://127.0.0.1:${PORT_BASE + 2 * (Number(m.name[1]) - 1)}`);
      expect(m.probeLatencyMs).toBeGreaterThan(0);
      expect(m.errors).toEqual([]);
    }
    expect(members.filter((m) => m.isLeader)).toHaveLength(1);
    const leader = members.find((m) => m.isLeader)!;
    for (const m of members) expect(m.leader).toBe(leader.id);
    // the same numbers etcdctl prints for the same endpoints
    const pki = join(dir, 'pki');
    const ctl = await etcdctl(
      ['endpoint', 'status', '-w', 'json', `--cacert=${join(pki, 'ca.crt')}`, `--cert=${join(pki, 'client.crt')}`, `--key=${join(pki, 'client.key')}`],
      { endpoints: members.map((m) => m.endpoint) },
    );
    expect(ctl.code).toBe(0);
    const rows = parseJsonWithBigIds(ctl.stdout) as { Endpoint: string; Status: { header: { member_id: string }; leader: string; raftTerm: number; dbSize?: number; version: string } }[];
    expect(rows.map((r) => ({ endpoint: r.Endpoint, id: BigInt(r.Status.header.member_id).toString(16).padStart(16, '0'), leader: BigInt(r.Status.leader).toString(16).padStart(16, '0'), term: String(r.Status.raftTerm), version: r.Status.version }))).toEqual(
      members.map((m) => ({ endpoint: m.endpoint, id: m.id, leader: m.leader, term: m.raftTerm, version: m.version })),
    );
    // The API server and controllers keep writing, so the database may grow
    // between the two probes; its size only grows until a defragment, so
    // etcdctl's figure lies between ours before and ours after.
    const after = await h().members();
    rows.forEach((r, i) => {
      expect(r.Status.dbSize, r.Endpoint).toBeGreaterThanOrEqual(members[i]!.dbSize);
      expect(r.Status.dbSize, r.Endpoint).toBeLessThanOrEqual(after[i]!.dbSize);
    });
  });

  it('captures every member\'s output as log lines, searchable, also in DIR/logs', async () => {
    expect(await h().logComponents()).toEqual(expect.arrayContaining(['m1', 'm2', 'm3']));
    const lines = await h().logs({ component: 'm1', limit: 50 });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]!.text).toMatch(/^started pid \d+/);
    const started = await h().logs({ component: 'm2', search: 'STARTED PID' });
    expect(started).toHaveLength(1);
    expect(sink.of('logLines').flat().some((l) => l.component === 'm3')).toBe(true);
    expect(readFileSync(join(dir, 'logs', 'm1.log'), 'utf8')).toContain('pilothouse-console: started pid');
  });

  it('kubectl works with DIR/kubeconfig, and its requests reach the trace feed', async () => {
    const r = await kubectl(['get', 'namespaces', '-o', 'name']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('namespace/default');
    const traces = await eventually('traces', async () => {
      const t = await h().recentTraces({ limit: 100 });
      return t.some((x) => x.resource === 'namespaces' && x.verb === 'list') && t;
    }, { timeoutMs: 30_000, intervalMs: 50 });
    expect(traces.find((x) => x.resource === 'namespaces' && x.verb === 'list')).toMatchObject({ decision: 'allowed', code: 200 });
    expect(await h().logComponents()).toContain('apiserver');
  });

  it('opens a terminal where etcdctl and kubectl reach the cluster with no flags', async () => {
    const t = await h().openTerminal({ cols: 200, rows: 40 });
    expect(t.missingTools).toEqual([]);
    await h().terminalInput({ id: t.id, data: 'etcdctl endpoint health 2>&1; kubectl get ns default -o name; exit\r' });
    const exit = await eventually('terminal exit', () => sink.of('terminalExit').find((e) => e.id === t.id), { timeoutMs: 60_000, intervalMs: 50 });
    const out = sink.of('terminalData').filter((d) => d.id === t.id).map((d) => d.data).join('');
    expect(exit.code).toBe(0);
    for (const m of svc.supervisor.layout) expect(out).toMatch(new RegExp(`${m.clientUrl.replace(/\./g, '\\.')} is healthy: successfully committed proposal`));
    expect(out).toContain('namespace/default');
  }, 90_000);

  it('restarts the API server through componentAction', async () => {
    const before = svc.supervisor.process('apiserver').pid!;
    const r = await h().componentAction({ component: 'apiserver', action: 'restart' });
    expect(r.ok).toBe(true);
    // The command to run it by hand, with the V8 flags the supervisor gives it.
    expect(r.command).toMatch(new RegExp(`^kill -TERM ${before}; ELECTRON_RUN_AS_NODE=1 \\S+ --max-semi-space-size=32 \\S+/cli\\.js apiserver --etcd-servers=https://127\\.0\\.0\\.1:${PORT_BASE},`));
    notePids();
    await eventually('API server ready again', async () => (await h().overview()).summary.includes('API server ready') && svc.supervisor.process('apiserver').state === 'running', { timeoutMs: 60_000, intervalMs: 50 });
    expect((await kubectl(['get', 'ns', 'default', '-o', 'name'])).stdout.trim()).toBe('namespace/default');
    expect(await h().componentAction({ component: 'scheduler', action: 'stop' })).toEqual({ ok: false, message: 'no component scheduler', command: '' });
  }, 120_000);

  it('shows an alarm raised on a member (AlarmList, every few probe rounds) and its disarming', async () => {
    const m2 = (await h().members()).find((m) => m.name === 'm2')!;
    const client = etcdClient();
    try {
      await client.maintenance.alarm({ action: 'Activate', memberID: BigInt(`0x${m2.id}`).toString(), alarm: 'Nospace' });
      const o = await eventually('alarm in the overview', async () => {
        const x = await h().overview();
        return x.summary.includes('alarm NOSPACE on m2') && x;
      }, { timeoutMs: 60_000, intervalMs: 50 });
      expect(o.health).toBe('degraded');
      expect(o.members.find((m) => m.name === 'm2')!.alarms).toEqual(['NOSPACE']);
      expect(o.members.find((m) => m.name === 'm1')!.alarms).toEqual([]);
      await client.maintenance.alarm({ action: 'Deactivate', memberID: BigInt(`0x${m2.id}`).toString(), alarm: 'Nospace' });
      await eventually('alarm cleared', async () => (await h().overview()).health === 'healthy', { timeoutMs: 60_000, intervalMs: 50 });
    } finally {
      client.close();
    }
  }, 150_000);

  it('pauses and resumes a follower', async () => {
    const follower = (await h().members()).find((m) => !m.isLeader)!;
    const pid = svc.supervisor.process(follower.name).pid!;
    const paused = await h().memberAction({ member: follower.name, action: 'pause' });
    expect(paused).toEqual({ ok: true, message: `${follower.name} paused (SIGSTOP, pid ${pid})`, command: `kill -STOP ${pid}` });
    try {
      // the kernel state letter: T = stopped by a signal (delivered asynchronously)
      await eventually('SIGSTOP delivered', () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0] === 'T', { timeoutMs: 5_000, intervalMs: 50 });
      const seen = await eventually('paused member unhealthy', async () => (await h().members()).find((m) => m.name === follower.name && !m.healthy), { timeoutMs: 30_000, intervalMs: 50 });
      expect(seen.process).toBe('paused');
      // the other two keep the quorum (waited for: on a loaded machine a probe of them may time out once)
      await eventually('degraded with the other two healthy', async () => (await h().overview()).health === 'degraded', { timeoutMs: 30_000, intervalMs: 50 });
    } finally {
      const resumed = await h().memberAction({ member: follower.name, action: 'resume' });
      expect(resumed.command).toBe(`kill -CONT ${pid}`);
    }
    await eventually('resumed member healthy', async () => (await h().members()).find((m) => m.name === follower.name && m.healthy), { timeoutMs: 30_000, intervalMs: 50 });
    expect(svc.supervisor.process(follower.name).pid).toBe(pid);
  }, 120_000);

  it('restarts a member that crashed (kill -9 from outside), with its restart counted', async () => {
    const proc = svc.supervisor.process('m3');
    const pid = proc.pid!;
    process.kill(pid, 'SIGKILL');
    await eventually('m3 restarting', () => proc.state === 'restarting' || (proc.pid !== undefined && proc.pid !== pid), { timeoutMs: 30_000, intervalMs: 50 });
    await eventually('m3 running again', () => proc.state === 'running' && proc.pid !== pid, { timeoutMs: 60_000, intervalMs: 50 });
    notePids();
    const status = proc.status();
    const m3log = (await h().logs({ component: 'm3', limit: 60 })).map((l) => `${l.at} ${l.stream} ${l.text.slice(0, 160)}`).join('\n');
    // 1 on a quiet machine; once a restarted member also died on a machine at load 20+ (its log is the message)
    expect(status.restarts, m3log).toBeGreaterThanOrEqual(1);
    expect(status.lastExit).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect((await h().logs({ component: 'm3', search: 'crashed; restart 1' })).length).toBe(1);
  }, 120_000);

  it('runs the controllers (3 simulated nodes Ready) and restarts them after a kill -9 from outside', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    const readyNodes = async () => {
      const r = await new Promise<string>((res) => {
        const child = spawn('/usr/bin/kubectl', ['get', 'nodes', '--no-headers'], { env: { ...process.env, KUBECONFIG: kubeconfig } });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.on('close', () => res(out));
      });
      return r.split('\n').filter((l) => /^\S+\s+Ready\s/.test(l)).length === 3;
    };
    await eventually('3 Ready nodes', readyNodes, { timeoutMs: 60_000, intervalMs: 50 });
    const proc = svc.supervisor.process('controllers');
    expect(proc.state).toBe('running');
    const pid = proc.pid!;
    process.kill(pid, 'SIGKILL');
    await eventually('controllers crashed and restarting', () => proc.state === 'restarting' || (proc.pid !== undefined && proc.pid !== pid), { timeoutMs: 30_000, intervalMs: 50 });
    await eventually('controllers running again', () => proc.state === 'running' && proc.pid !== pid, { timeoutMs: 60_000, intervalMs: 50 });
    notePids();
    expect(proc.status().restarts).toBeGreaterThanOrEqual(1);
    expect(proc.status().lastExit).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect((await h().logs({ component: 'controllers', search: 'crashed; restart 1' })).length).toBe(1);
    expect((await h().overview()).components.find((c) => c.id === 'controllers')?.state).toBe('running');
    await eventually('3 Ready nodes after the restart', readyNodes, { timeoutMs: 60_000, intervalMs: 50 });
  }, 180_000);

  it('kill-the-leader: a new leader at a higher term, a positive failover time, the old leader restarted', async () => {
    await eventually('healthy', async () => (await h().overview()).health === 'healthy', { timeoutMs: 30_000, intervalMs: 50 });
    const r = await h().killLeaderExperiment();
    console.log(`failover: ${JSON.stringify(r)}`);
    expect(r.newLeader).not.toBe(r.killed);
    expect(BigInt(r.newTerm)).toBeGreaterThan(BigInt(r.oldTerm));
    expect(r.failoverMs).toBeGreaterThan(0);
    expect(r.restarted).toBe(true);
    notePids();
    const killed = svc.supervisor.process(r.killed);
    expect(killed.status().lastExit?.signal).toBe('SIGKILL');
    await eventually('killed member healthy again', async () => (await h().members()).find((m) => m.name === r.killed && m.healthy), { timeoutMs: 60_000, intervalMs: 50 });
    const events = await h().leaderTimeline();
    const lost = [...events].reverse().find((e) => e.kind === 'lost');
    const elected = [...events].reverse().find((e) => e.kind === 'elected');
    expect(lost).toMatchObject({ previousLeader: r.killed, term: r.oldTerm });
    expect(elected).toMatchObject({ leader: r.newLeader, term: r.newTerm });
    expect(elected!.leaderlessMs).toBeGreaterThanOrEqual(0);
    expect(sink.of('leaderEvent').length).toBeGreaterThanOrEqual(3);
    expect(readFileSync(join(dir, 'console', 'leader-history.jsonl'), 'utf8').trim().split('\n').length).toBe(events.length);
  }, 120_000);

  it('make-leader moves leadership with MoveLeader sent to the leader; defrag runs on one member', async () => {
    await eventually('healthy', async () => (await h().overview()).health === 'healthy', { timeoutMs: 60_000, intervalMs: 50 });
    const members = await h().members();
    const leader = members.find((m) => m.isLeader)!;
    const target = members.find((m) => !m.isLeader)!;
    const r = await h().memberAction({ member: target.name, action: 'make-leader' });
    expect(r).toEqual({
      ok: true,
      message: `Leadership transferred from ${leader.id} to ${target.id}`,
      command: `etcdctl --endpoints=${leader.endpoint} move-leader ${target.id}`,
    });
    await eventually('target leads', async () => (await h().members()).find((m) => m.name === target.name && m.isLeader), { timeoutMs: 30_000, intervalMs: 50 });
    const again = await h().memberAction({ member: target.name, action: 'make-leader' });
    expect(again.ok).toBe(false);
    expect(again.message).toBe(`${target.name} is already the leader`);
    const d = await h().memberAction({ member: 'm2', action: 'defrag' });
    expect(d).toEqual({ ok: true, message: `Finished defragmenting etcd member[https://127.0.0.1:${PORT_BASE + 2}]`, command: `etcdctl defrag --endpoints=https://127.0.0.1:${PORT_BASE + 2}` });
  }, 120_000);

  it('takes a snapshot with progress, lists and verifies it, then restores it into a new cluster', async () => {
    const client = etcdClient();
    try {
      for (let i = 0; i < 20; i++) await client.put(`/snap/k${i}`).value(`v${i}`);
      const before = await h().overview();
      const { jobId } = await h().takeSnapshot();
      const done = await eventually('snapshot done', () => sink.of('snapshotProgress').find((p: SnapshotProgress) => p.jobId === jobId && p.state !== 'running'), { timeoutMs: 30_000, intervalMs: 50 });
      expect(done.state).toBe('done');
      expect(done.bytes).toBe(done.totalBytes);
      expect(done.bytes % 512).toBe(32);
      const snap = done.snapshot!;
      expect(snap.size).toBe(done.bytes);
      expect(Number(snap.revision)).toBeGreaterThanOrEqual(21);
      expect(snap.totalKeys).toBeGreaterThanOrEqual(20);
      expect(snap.hash).toMatch(/^[0-9a-f]+$/);
      expect((await h().listSnapshots()).map((s) => s.name)).toEqual([snap.name]);
      expect((await h().verifySnapshot({ name: snap.name })).verified).toBe(true);

      await client.put('/snap/after').value('not in the snapshot');
      await client.delete().key('/snap/k0');
      expect(await h().restoreSnapshot({ name: snap.name })).toEqual({ started: true });
      const finished = await eventually('restore finished', () => sink.of('restoreProgress').find((p: RestoreProgress) => p.state === 'failed' || (p.step === 'serving' && p.state === 'done')), { timeoutMs: 200_000, intervalMs: 50 });
      const restoreEvents = sink.events.filter((e) => e.name === 'restoreProgress');
      console.log(`restore: ${restoreEvents.filter((e) => (e.payload as RestoreProgress).detail === undefined || (e.payload as RestoreProgress).state !== 'running' || (e.payload as RestoreProgress).step !== 'start').map((e) => `${(e.payload as RestoreProgress).step}:${(e.payload as RestoreProgress).state} +${e.at - restoreEvents[0]!.at}ms`).join(', ')}`);
      expect(finished).toMatchObject({ state: 'done' });
      expect(finished.clusterId).toMatch(/^[0-9a-f]{16}$/);
      expect(finished.clusterId).not.toBe(before.clusterId);
      // our 20 keys plus what the API server stored (namespaces, service ranges, ...)
      expect(finished.keys).toBeGreaterThanOrEqual(20);
      notePids();
      // (while waiting for health, a 'running' line repeats with the latest error)
      expect([...new Set(sink.of('restoreProgress').map((p) => `${p.step}:${p.state}`))]).toEqual([
        'verify:running', 'verify:done', 'plan:running', 'plan:done', 'stop:running', 'stop:done', 'set-aside:running', 'set-aside:done',
        'restore:running', 'restore:done', 'start:running', 'start:done', 'serving:running', 'serving:done',
      ]);
    } finally {
      client.close();
    }
    const fresh = etcdClient();
    try {
      expect(await fresh.get('/snap/k0').string()).toBe('v0');
      expect(await fresh.get('/snap/k19').string()).toBe('v19');
      expect(await fresh.get('/snap/after').string()).toBeNull();
      expect(await fresh.getAll().prefix('/snap/').count()).toBe(20);
    } finally {
      fresh.close();
    }
    const o = await eventually('new cluster id in the overview', async () => {
      await h().members();
      const x = await h().overview();
      return x.health === 'healthy' && x;
    }, { timeoutMs: 30_000, intervalMs: 50 });
    expect(o.clusterId).toBe(sink.of('restoreProgress').at(-1)!.clusterId);
    // the API server was restarted with the members and serves the restored cluster
    await eventually('API server ready after restore', async () => (await kubectl(['get', 'ns', 'default', '-o', 'name'])).stdout.trim() === 'namespace/default', { timeoutMs: 60_000, intervalMs: 50 });
  }, 300_000);

  it('dispose stops every member it started', async () => {
    notePids();
    const running = svc.supervisor.components().map((c) => c.pid!);
    expect(running.every(alive)).toBe(true);
    await svc.dispose();
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(svc.supervisor.components().map((c) => c.state)).toEqual(['stopped', 'stopped', 'stopped', 'stopped', 'stopped']);
  });

  it('a restarted console resumes the same cluster (PKI and data kept) and keeps the leader timeline', async () => {
    const timelineBefore = await within('leader timeline before the restart', 30_000, h().leaderTimeline());
    svc = createConsoleServices({ dataDir: dir, portBase: PORT_BASE, cliPath: CLI_JS, runtime: 'web', events: new Sink(), startTimeoutMs: 120_000 });
    const t0 = Date.now();
    await svc.start();
    notePids();
    const steps = await h().startupProgress();
    console.log(`warm start (PKI and data dirs exist): ${Date.now() - t0} ms; steps ${steps.map((x) => `${x.id} ${x.elapsedMs} ms`).join(', ')}`);
    expect(steps.every((x) => x.state === 'done')).toBe(true);
    expect((await h().leaderTimeline()).slice(0, timelineBefore.length)).toEqual(timelineBefore);
    const c = etcdClient();
    try {
      expect(await within('count of /snap/ keys', 30_000, c.getAll().prefix('/snap/').count())).toBe(20);
    } finally {
      c.close();
    }
    await within('dispose of the restarted console', 60_000, svc.dispose());
    for (const pid of pids) expect(alive(pid)).toBe(false);
  }, 180_000);
});
