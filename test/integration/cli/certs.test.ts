// Certificates and secrets of a real `pilothouse up`: every data dir 0700 and
// every key, kubeconfig, etcdctl.env and the audit log 0600; `certs
// check-expiration` lists every certificate with its expiry; after `certs
// renew all` and a restart of the components, each member and the API
// server serve the new certificate (serials read from the files and from
// the TLS handshakes) and the plane is healthy (etcdctl endpoint health,
// kubectl get ns). Debian's etcd runs with the same PKI.
//
// `up` also renews, at start, what expires within 30 days.
//
// The restart: renew all sends SIGHUP to DIR/controlplane.pid when the
// process hosting the plane wrote one and is alive (it then restarts the
// components in turn); otherwise this test restarts `up` itself.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { formatExpiry } from '../../../main/cmd/certs';
import { issueLeaf, leafRequestOf } from '../../../main/common/pki/certificates';
import { writePair } from '../../../main/common/pki/clusterPki';
import { expirationOf, pkiInventory } from '../../../main/common/pki/renewal';
import { CLI_JS, reapClusters, startTestCluster } from '../../support/cluster';
import { etcdctl } from '../../support/etcdctl';
import { eventually } from '../../support/waitFor';

const PORT_BASE = 22500;
const ETCD_PORT_BASE = 22520;
const API_PORT = PORT_BASE + 6;
const MEMBER_PORTS = [PORT_BASE, PORT_BASE + 2, PORT_BASE + 4];
const dir = mkdtempSync(join(tmpdir(), 'pilothouse-certs-'));
const children = new Set<ChildProcess>();
const spawnedPids = new Set<number>();

interface UpRun {
  child: ChildProcess;
  output: () => string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `up` with its API server and controllers, once the controllers wrote their kubeconfigs. */
async function startUp(): Promise<UpRun> {
  const child = spawn(process.execPath, [CLI_JS, 'up', '--data-dir', dir, '--port-base', String(PORT_BASE)], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  const collect = (d: string) => {
    out += d;
    for (const m of out.matchAll(/(?:m\d|apiserver|controllers) pid (\d+)/g)) spawnedPids.add(Number(m[1]));
  };
  child.stdout!.setEncoding('utf8').on('data', collect);
  child.stderr!.setEncoding('utf8').on('data', collect);
  // The ready line: every component has written its files (the kubelets' identities, the audit log) by then.
  await eventually(`up to be ready: ${out}`, () => out.includes('pilothouse: control plane ready') || child.exitCode !== null, { timeoutMs: 120_000, intervalMs: 200 });
  expect(out, out).toContain('pilothouse: control plane ready');
  await eventually('the component kubeconfigs', () => ['scheduler.conf', 'controller-manager.conf', 'kubelet-node-1.conf'].every((f) => existsSync(join(dir, f))), { timeoutMs: 60_000, intervalMs: 200 });
  return { child, output: () => out };
}

async function stopUp(run: UpRun): Promise<void> {
  const exited = new Promise((r) => run.child.once('exit', r));
  run.child.kill('SIGTERM');
  await exited;
  children.delete(run.child);
}

function cli(args: string[]): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync(process.execPath, [CLI_JS, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

function kubectl(args: string[]): { stdout: string; stderr: string; status: number | null } {
  const r = spawnSync('/usr/bin/kubectl', args, { env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig') }, encoding: 'utf8', timeout: 30_000 });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

function envFileEtcdctl(args: string): { out: string; status: number | null } {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCDCTL_')));
  const r = spawnSync('bash', ['-c', `source ${join(dir, 'etcdctl.env')} && etcdctl ${args}`], { env, encoding: 'utf8', timeout: 30_000 });
  return { out: r.stdout + r.stderr, status: r.status };
}

/** The serial of the certificate a TLS server on port presents (with etcdctl's client certificate, which members require). */
function servedSerial(port: number): Promise<string> {
  const pki = join(dir, 'pki');
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, ca: [readFileSync(join(pki, 'ca.crt')), readFileSync(join(pki, 'kube', 'ca.crt'))], cert: readFileSync(join(pki, 'client.crt')), key: readFileSync(join(pki, 'client.key')), servername: 'localhost' }, () => {
      const serial = s.getPeerCertificate().serialNumber;
      s.destroy();
      resolve(serial);
    });
    s.on('error', reject);
  });
}

const fileSerial = (path: string) => new X509Certificate(readFileSync(path)).serialNumber;
const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** Every file under root, recursively. */
function walk(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(root, e.name)) : [join(root, e.name)]));
}

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  for (const pid of spawnedPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  await reapClusters();
  rmSync(dir, { recursive: true, force: true });
});

describe('pilothouse certs on a running plane', () => {
  let run: UpRun;

  it('keeps every secret private on disk', async () => {
    run = await startUp();
    await eventually('the audit log', () => existsSync(join(dir, 'logs', 'audit.log')), { timeoutMs: 30_000, intervalMs: 200 });
    const dirs = [dir, join(dir, 'pki'), join(dir, 'pki', 'kube'), ...['m1', 'm2', 'm3'].flatMap((m) => [join(dir, m), join(dir, m, 'member'), join(dir, 'pki', m)])];
    for (const d of dirs) expect(mode(d), d).toBe('700');
    const keys = walk(join(dir, 'pki')).filter((f) => f.endsWith('.key'));
    expect(keys.length).toBe(2 + 6 + 1 + 3 + 2 + 3 + 1); // CAs, members, etcdctl, API server and admin, components, kubelets, sa.key
    const secrets = [
      ...keys,
      join(dir, 'kubeconfig'),
      join(dir, 'etcdctl.env'),
      join(dir, 'logs', 'audit.log'),
      ...readdirSync(dir).filter((f) => f.endsWith('.conf')).map((f) => join(dir, f)),
    ];
    for (const f of secrets) expect(mode(f), f).toBe('600');
    for (const f of walk(join(dir, 'pki')).filter((f) => f.endsWith('.crt'))) expect(mode(f), f).toBe('644');
  }, 200_000);

  it('check-expiration shows every certificate with its expiry', () => {
    const r = cli(['certs', 'check-expiration', '--data-dir', dir]);
    expect(r.status, r.stderr).toBe(0);
    const { certs, cas } = pkiInventory(dir);
    expect(certs.map((c) => c.name)).toEqual([
      'apiserver',
      'apiserver-etcd-client',
      'controller-manager.conf',
      'etcd-client',
      'etcd-peer-m1',
      'etcd-peer-m2',
      'etcd-peer-m3',
      'etcd-server-m1',
      'etcd-server-m2',
      'etcd-server-m3',
      'kubeconfig',
      'kubelet-node-1.conf',
      'kubelet-node-2.conf',
      'kubelet-node-3.conf',
      'scheduler.conf',
    ]);
    const lines = r.stdout.split('\n');
    for (const c of [...certs, ...cas]) {
      const row = lines.find((l) => l.startsWith(`${c.name} `));
      expect(row, `${c.name} in\n${r.stdout}`).toMatch(new RegExp(`^${c.name.replace(/\./g, '\\.')} +${formatExpiry(expirationOf(c).notAfter)} {3}(364d|9y) +`));
    }
  });

  it('renew all issues new serials, and after the restart every component serves them and the plane is healthy', async () => {
    const pki = join(dir, 'pki');
    const served = [...MEMBER_PORTS, API_PORT];
    const files = [...['m1', 'm2', 'm3'].map((m) => join(pki, m, 'server.crt')), join(pki, 'kube', 'apiserver.crt')];
    const before = await Promise.all(served.map(servedSerial));
    expect(before).toEqual(files.map(fileSerial));
    const oldFileSerials = new Map(pkiInventory(dir).certs.map((c) => [c.name, fileSerial(c.pair.cert)]));

    const r = cli(['certs', 'renew', 'all', '--data-dir', dir]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('certificate for serving etcd (m2) renewed\n');
    expect(r.stdout).toContain('certificate for serving the Kubernetes API renewed\n');
    expect(r.stdout.split('\n').filter((l) => l.endsWith(' renewed'))).toHaveLength(15);
    for (const c of pkiInventory(dir).certs) expect(fileSerial(c.pair.cert), c.name).not.toBe(oldFileSerials.get(c.name));
    const after = files.map(fileSerial);

    if (r.stdout.includes('restarting the components in turn')) {
      await eventually('the components to restart', async () => JSON.stringify(await Promise.all(served.map((p) => servedSerial(p).catch(() => '')))) === JSON.stringify(after), { timeoutMs: 120_000, intervalMs: 200 });
    } else {
      expect(r.stdout).toContain('Done renewing certificates. You must restart');
      await stopUp(run);
      run = await startUp();
    }
    expect(await Promise.all(served.map(servedSerial))).toEqual(after);
    for (let i = 0; i < after.length; i++) expect(after[i]).not.toBe(before[i]);

    const health = envFileEtcdctl('endpoint health');
    expect(health.status, health.out).toBe(0);
    expect(health.out.match(/is healthy/g)).toHaveLength(3);
    let ns = kubectl(['get', 'ns']);
    await eventually(`kubectl get ns: ${ns.stderr}`, () => (ns = kubectl(['get', 'ns'])).status === 0, { timeoutMs: 60_000, intervalMs: 200 });
    expect(ns.stdout).toMatch(/^default +Active/m);
    const nodes = kubectl(['get', 'nodes', '-o', 'name']);
    expect(nodes.stdout.trim().split('\n')).toEqual(['node/node-1', 'node/node-2', 'node/node-3']);
    await stopUp(run);
  }, 400_000);

  it('up renews a certificate within 30 days of expiry at start', async () => {
    const m1 = pkiInventory(dir).certs.find((c) => c.name === 'etcd-server-m1')!;
    const etcdCa = { cert: readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8'), key: readFileSync(join(dir, 'pki', 'ca.key'), 'utf8') };
    writePair(m1.pair, await issueLeaf(etcdCa, leafRequestOf(readFileSync(m1.pair.cert, 'utf8')), { days: 20 }));
    const short = fileSerial(m1.pair.cert);
    run = await startUp();
    expect(run.output()).toContain('pilothouse: renewed certificates expiring within 30 days: etcd-server-m1\n');
    const renewed = fileSerial(m1.pair.cert);
    expect(renewed).not.toBe(short);
    expect(await servedSerial(MEMBER_PORTS[0]!)).toBe(renewed);
    expect(cli(['certs', 'check-expiration', '--data-dir', dir]).stdout).toMatch(/^etcd-server-m1 +\w{3} \d\d, \d{4} \d\d:\d\d UTC {3}364d /m);
    await stopUp(run);
  }, 200_000);
});

describe("Debian's etcd with the in-process PKI", () => {
  it('serves mutual TLS with the same certificates', async () => {
    const tc = await startTestCluster('etcd', ETCD_PORT_BASE, 30_000, { tls: true });
    const pki = tc.cluster.pki!;
    const tls = [`--cacert=${pki.ca.cert}`, `--cert=${pki.client.cert}`, `--key=${pki.client.key}`];
    const endpoints = tc.cluster.layout.map((m) => m.clientUrl);
    const health = await etcdctl([...tls, 'endpoint', 'health'], { endpoints });
    expect(health.code, health.stderr).toBe(0);
    expect((health.stdout + health.stderr).match(/is healthy/g)).toHaveLength(3);
    const put = await etcdctl([...tls, 'put', 'k', 'v'], { endpoints });
    expect(put.stdout).toBe('OK\n');
  }, 120_000);
});
