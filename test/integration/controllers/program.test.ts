// `pilothouse controllers` as a real process against a real control plane:
// --data-dir issues kubeadm-like identities (DIR/scheduler.conf, …); two
// instances campaign for kube-system/kube-scheduler and
// kube-system/kube-controller-manager; exactly one holds each Lease; kill -9
// the scheduler's holder and the other instance takes over once the lease
// has run out, with leaseTransitions and LeaderElection events as kube's.
// The program runs from a private copy of out/ (another engineer's rebuild of
// the shared out/ must not pull the files from under it). Ports 29020–29026.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_JS } from '../../support/cluster';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { eventually } from '../../support/waitFor';

const PRIVATE = resolve(`test-results/controllers-program-${process.pid}`);
const LEASE = { duration: 4000, renew: 3000, retry: 500 };

let api: TestApiServer;
let cli: string;
const procs: { child: ChildProcess; log: () => string }[] = [];

beforeAll(async () => {
  if (!existsSync(CLI_JS)) throw new Error('run npm run build first');
  cpSync(resolve(CLI_JS, '../..'), join(PRIVATE, 'out'), { recursive: true });
  cli = join(PRIVATE, 'out/main/cli.js');
  api = await startTestApiServer(29020);
}, 120_000);

afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(procs.map((p) => (p.child.exitCode === null && p.child.signalCode === null ? new Promise((r) => p.child.once('exit', r)) : undefined)));
  await reapApiServers();
  rmSync(PRIVATE, { recursive: true, force: true });
});

function startControllers(extra: string[] = []): { child: ChildProcess; log: () => string } {
  const child = spawn(
    process.execPath,
    [
      cli,
      'controllers',
      `--data-dir=${api.tc.dir}`,
      '--components=kube-scheduler,kube-controller-manager',
      '--nodes=2',
      `--leader-elect-lease-duration=${LEASE.duration}ms`,
      `--leader-elect-renew-deadline=${LEASE.renew}ms`,
      `--leader-elect-retry-period=${LEASE.retry}ms`,
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } },
  );
  let text = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (text += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (text += d));
  const p = { child, log: () => text };
  procs.push(p);
  return p;
}

const acquired = (p: { log: () => string }, lease: string) => p.log().includes(`successfully acquired lease kube-system/${lease}`);

async function leaseSpec(name: string): Promise<Record<string, unknown> | undefined> {
  const r = await api.kubectl(['get', 'lease', '-n', 'kube-system', name, '-o', 'json']);
  return r.code === 0 ? (JSON.parse(r.stdout) as { spec: Record<string, unknown> }).spec : undefined;
}

describe('pilothouse controllers', () => {
  it('rejects inconsistent leader election durations and unknown components with exit code 2', () => {
    const cases = [
      { args: ['--leader-elect-lease-duration=5s', '--leader-elect-renew-deadline=10s'], want: /lease-duration > renew-deadline/ },
      { args: ['--components=kube-proxy'], want: /unknown components: kube-proxy/ },
      { args: ['--leader-elect-retry-period=2x'], want: /time: unknown unit "x" in duration "2x"/ },
    ];
    for (const c of cases) {
      const r = spawnSync(process.execPath, [cli, 'controllers', `--kubeconfig=${api.layout.kubeconfig}`, ...c.args], { encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, timeout: 30_000 });
      expect(r.stderr, c.args.join(' ')).toMatch(c.want);
      expect(r.status, c.args.join(' ')).not.toBe(0);
    }
  }, 60_000);

  it('runs the whole chain: a 3-replica Deployment applied with kubectl has 3 Running pods on the simulated nodes', async () => {
    const one = startControllers(['--components=kube-scheduler,kube-controller-manager,kubelet']);
    await eventually('leading', () => acquired(one, 'kube-scheduler') && acquired(one, 'kube-controller-manager'), { timeoutMs: 30_000, intervalMs: 100, detail: () => one.log() });
    await eventually('nodes registered', async () => (await api.kubectl(['get', 'nodes', '-o', 'name'])).stdout.split('\n').filter(Boolean).length === 2, { timeoutMs: 30_000, intervalMs: 100, detail: () => one.log() });
    const deploy = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx}]}
`;
    expect((await api.kubectl(['apply', '-f', '-'], { stdin: deploy })).code).toBe(0);
    const phases = async () => (await api.kubectl(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.status.phase} {.spec.nodeName}{"\\n"}{end}'])).stdout.trim();
    await eventually('3 pods Running', async () => (await phases()).split('\n').filter((l) => /^Running node-[12]$/.test(l)).length === 3, { timeoutMs: 30_000, intervalMs: 100, detail: () => one.log().split('\n').slice(-20).join('\n') });
    const rollout = await api.kubectl(['rollout', 'status', 'deploy/web', '--timeout=30s'], { timeoutMs: 40_000 });
    expect(rollout.stdout).toContain('deployment "web" successfully rolled out');
    // The kubelet wrote as system:node:<node> through its own kubeconfig; the events tell the lifecycle.
    const describe = (await api.kubectl(['describe', 'pods', '-l', 'app=web'])).stdout;
    for (const reason of ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started']) expect(describe).toMatch(new RegExp(`Normal\\s+${reason}\\s`));
    expect((await api.kubectl(['get', 'pods', '-l', 'app=web', '-o', 'name'])).stdout.trim().split('\n')).toHaveLength(3);
    expect((await api.kubectl(['delete', 'deploy', 'web'])).code).toBe(0);
    one.child.kill('SIGTERM');
    await new Promise((r) => one.child.once('exit', r));
  }, 150_000);

  it('two instances: one leads each Lease; kill -9 of the scheduler leader hands over within the lease time', async () => {
    const first = startControllers();
    await eventually('first instance leads both', () => acquired(first, 'kube-scheduler') && acquired(first, 'kube-controller-manager'), { timeoutMs: 30_000, intervalMs: 100 });
    const second = startControllers();
    await eventually('second instance campaigns', () => second.log().includes('new leader elected'), { timeoutMs: 30_000, intervalMs: 100 });
    // Well past several retry periods the standby still does not lead.
    await new Promise((r) => setTimeout(r, 3 * LEASE.retry + 1000));
    expect(acquired(second, 'kube-scheduler')).toBe(false);
    expect(acquired(second, 'kube-controller-manager')).toBe(false);

    const before = (await leaseSpec('kube-scheduler'))!;
    expect(before.holderIdentity).toMatch(/^[^_]+_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(before.leaseDurationSeconds).toBe(4);
    const transitions = Number(before.leaseTransitions ?? 0);

    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    await eventually('second instance takes over both leases', () => acquired(second, 'kube-scheduler') && acquired(second, 'kube-controller-manager'), { timeoutMs: 20_000, intervalMs: 100, detail: () => second.log().split('\n').slice(-30).join('\n') });
    const took = Date.now() - killedAt;
    // Not before the lease ran out as the standby observed it, and within it plus a few (jittered) retries.
    expect(took).toBeGreaterThan(LEASE.duration - 2 * LEASE.retry);
    expect(took).toBeLessThan(LEASE.duration + 4 * LEASE.retry * 2.2 + 2000);

    const after = (await leaseSpec('kube-scheduler'))!;
    expect(after.holderIdentity).not.toBe(before.holderIdentity);
    expect(after.leaseTransitions).toBe(transitions + 1);
    const events = JSON.parse((await api.kubectl(['get', 'events', '-n', 'kube-system', '--field-selector', 'reason=LeaderElection,involvedObject.name=kube-scheduler', '-o', 'json'])).stdout) as {
      items: { message: string; source: { component: string }; involvedObject: { kind: string } }[];
    };
    // (An earlier test's instance led too: its event is there as well.)
    const messages = events.items.map((e) => e.message);
    expect(messages).toContain(`${before.holderIdentity} became leader`);
    expect(messages).toContain(`${after.holderIdentity} became leader`);
    expect(events.items.every((e) => e.involvedObject.kind === 'Lease' && e.source.component === 'kube-scheduler')).toBe(true);

    // SIGTERM: the leader releases its Leases (holder cleared) and exits 0.
    second.child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => second.child.once('exit', (c) => r(c)));
    expect(code).toBe(0);
    expect((await leaseSpec('kube-controller-manager'))!.holderIdentity ?? '').toBe('');
  }, 120_000);

  it('kill -9 of the active controller manager mid-work: the standby finishes the scale-up, no pod is created twice', async () => {
    const kubelets = startControllers(['--components=kubelet']);
    const a = startControllers(['--components=kube-scheduler,kube-controller-manager']);
    await eventually('a leads', () => acquired(a, 'kube-controller-manager') && acquired(a, 'kube-scheduler'), { timeoutMs: 30_000, intervalMs: 100, detail: () => a.log() });
    const b = startControllers(['--components=kube-scheduler,kube-controller-manager']);
    await eventually('b campaigns', () => b.log().includes('new leader elected'), { timeoutMs: 30_000, intervalMs: 100 });
    expect((await api.kubectl(['create', 'deployment', 'fo', '--image=nginx', '--replicas=2'])).code).toBe(0);
    const running = async () => (await api.kubectl(['get', 'pods', '-l', 'app=fo', '--field-selector=status.phase=Running', '-o', 'name'])).stdout.split('\n').filter(Boolean).length;
    await eventually('2 running', async () => (await running()) === 2, { timeoutMs: 30_000, intervalMs: 100 });
    a.child.kill('SIGKILL');
    expect((await api.kubectl(['scale', 'deploy', 'fo', '--replicas=5'])).code).toBe(0);
    await eventually('b takes over', () => acquired(b, 'kube-controller-manager'), { timeoutMs: 20_000, intervalMs: 100, detail: () => b.log() });
    await eventually('5 running', async () => (await running()) === 5, { timeoutMs: 30_000, intervalMs: 100, detail: () => b.log().split('\n').slice(-15).join('\n') });
    await new Promise((r) => setTimeout(r, 1500));
    const all = (await api.kubectl(['get', 'pods', '-l', 'app=fo', '-o', 'name'])).stdout.split('\n').filter(Boolean);
    expect(all).toHaveLength(5);
    const creates = (await api.kubectl(['get', 'events', '--field-selector', 'reason=SuccessfulCreate', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}'])).stdout
      .split('\n')
      .filter((m) => m.startsWith('Created pod: fo-'));
    expect(new Set(creates).size).toBe(5);
    for (const p of [b, kubelets]) p.child.kill('SIGTERM');
    await Promise.all([b, kubelets].map((p) => new Promise((r) => p.child.once('exit', r))));
  }, 150_000);

  it('issues kubeadm-like component identities under --data-dir', () => {
    const cases = [
      { file: 'scheduler.conf', subject: /CN\s*=\s*system:kube-scheduler$/ },
      { file: 'controller-manager.conf', subject: /CN\s*=\s*system:kube-controller-manager$/ },
      { file: 'kubelet-node-1.conf', subject: /O\s*=\s*system:nodes, CN\s*=\s*system:node:node-1$/ },
      { file: 'kubelet-node-2.conf', subject: /O\s*=\s*system:nodes, CN\s*=\s*system:node:node-2$/ },
    ];
    for (const c of cases) {
      const conf = readFileSync(join(api.tc.dir, c.file), 'utf8');
      expect(conf).toContain(`server: ${api.layout.url}`);
      const cert = Buffer.from(/client-certificate-data: (\S+)/.exec(conf)![1], 'base64').toString('utf8');
      const r = spawnSync('/usr/bin/openssl', ['x509', '-noout', '-subject', '-nameopt', 'RFC2253'], { input: cert, encoding: 'utf8' });
      // RFC2253 prints the most significant RDN last; normalise to OpenSSL's default order for the pattern.
      const subject = r.stdout.trim().replace(/^subject=/, '').split(',').reverse().map((s) => s.replace('=', ' = ')).join(', ');
      expect(subject, c.file).toMatch(c.subject);
      const verify = spawnSync('/usr/bin/openssl', ['verify', '-CAfile', api.layout.pki.ca.cert], { input: cert, encoding: 'utf8' });
      expect(verify.stdout, c.file).toContain('OK');
    }
  });
});
