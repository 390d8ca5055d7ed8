// The restore drill and the disaster recovery against a real `pilothouse
// up`, with real clients: kubectl creates the objects, `pilothouse backup
// save` takes the snapshot (with its metadata), etcdctl and
// @kubernetes/client-node (an informer, and a raw watch from an old
// resourceVersion) watch across the restore.
//
// - drill: "restorable", counts equal to the snapshot's facts, an RTO, the
//   verdict written into the metadata's lastDrill, nothing left running;
// - a snapshot with one byte flipped: refused by drill and restore with a
//   clear message, the live plane untouched (same host, same cluster id,
//   same data dirs, the objects at the same revisions);
// - restore: the objects created after the snapshot are gone from kubectl,
//   etcdctl, the informer's cache and every watch (a watch from an old
//   resourceVersion gets 410 Gone; an etcd watch from an old revision is
//   compacted); the earlier ones are back; revisions never went backwards;
//   the Deployment's Pods converge to its replicas.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig, ListWatch, Watch, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MvccStore } from '../../../main/etcd/mvcc/index';
import { Membership } from '../../../main/etcd/server/membership';
import { encodeSnapshotData } from '../../../main/etcd/server/snapshotData';
import { encodeSnapshotFile } from '../../../main/etcd/snapshotFile';
import { CLI_JS } from '../../support/cluster';
import { alive, reapUps, startUp, type UpRun } from '../../support/upProcess';
import { eventually } from '../../support/waitFor';

const PORT_BASE = 23900;
const SCRATCH_BASE = 23950;

let up: UpRun;
let snapshot: string;
let restoredHost: number | undefined;

interface Cli {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], timeoutMs = 180_000): Promise<Cli> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_JS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`pilothouse ${args.join(' ')} did not end within ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function kubectlOk(args: string[]): Promise<string> {
  const r = await up.kubectl(args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The live plane's identity and what it holds, to prove it untouched. */
async function liveFacts(): Promise<{ host: string; clusterId: string; dirs: string[]; configmaps: string }> {
  const st = await up.etcdctl(['endpoint', 'status', '-w', 'json'], [up.endpoints[0]!]);
  const clusterId = String(/"cluster_id":(\d+)/.exec(st.stdout)?.[1]);
  const cms = await up.etcdctl(['get', '/registry/configmaps/', '--prefix', '--keys-only', '-w', 'json']);
  const revs = [...cms.stdout.matchAll(/"key":"([^"]+)","create_revision":(\d+),"mod_revision":(\d+)/g)].map((m) => `${m[1]}@${m[3]}`).join(',');
  return { host: readFileSync(join(up.dir, 'controlplane.pid'), 'utf8').trim(), clusterId, dirs: readdirSync(up.dir).filter((n) => /^m\d/.test(n)).sort(), configmaps: revs };
}

async function currentRevision(): Promise<number> {
  const st = await up.etcdctl(['endpoint', 'status', '-w', 'json'], [up.endpoints[0]!]);
  return Number(/"revision":(\d+)/.exec(st.stdout)?.[1]);
}

beforeAll(async () => {
  up = startUp(PORT_BASE);
  await up.waitFor(/control plane ready/, 90_000);
  await kubectlOk(['create', 'configmap', 'early', '--from-literal=k=v']);
  await kubectlOk(['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
  await eventually('the Deployment has 2 ready replicas', async () => (await kubectlOk(['get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}'])) === '2', { timeoutMs: 60_000 });
  snapshot = join(up.dir, 'snapshots', 'before.db');
  const saved = await cli(['backup', 'save', '--data-dir', up.dir, '--out', snapshot]);
  expect(saved.code, saved.stdout + saved.stderr).toBe(0);
  expect(existsSync(`${snapshot}.json`)).toBe(true);
}, 180_000);

afterAll(async () => {
  // the restore's detached `up` is not up's child: stop it by its pid, as the CLI would
  if (restoredHost !== undefined && alive(restoredHost)) {
    process.kill(restoredHost, 'SIGTERM');
    await eventually('the restored plane host to exit', () => !alive(restoredHost!), { timeoutMs: 30_000 }).catch(() => process.kill(restoredHost!, 'SIGKILL'));
  }
  reapUps();
}, 60_000);

describe('pilothouse backup drill', () => {
  it('restores the snapshot into a scratch cluster, finds every key and lists every resource: restorable, with an RTO, recorded', async () => {
    const facts = JSON.parse(readFileSync(`${snapshot}.json`, 'utf8')).facts as { totalKeys: number; resources: Record<string, number>; revision: number };
    const before = await liveFacts();
    const r = await cli(['backup', 'drill', snapshot, '--data-dir', up.dir, '-w', 'json', '--port-base', String(SCRATCH_BASE)]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.verdict).toBe('restorable');
    expect(report.facts.totalKeys).toBe(facts.totalKeys);
    expect(report.facts.resources).toEqual(facts.resources);
    const byName = Object.fromEntries(report.checks.map((c: { name: string; ok: boolean; detail: string }) => [c.name, c]));
    expect(byName['total keys']).toMatchObject({ ok: true, detail: `${facts.totalKeys} restored at revision ${facts.revision}, snapshot ${facts.totalKeys}` });
    expect(byName['keys per resource'].ok).toBe(true);
    expect(byName['sha256 as saved'].ok).toBe(true);
    expect(report.rtoMs).toBeGreaterThan(0);
    expect(report.rpo.revisions).toBeGreaterThanOrEqual(0);
    expect(report.rpo.liveRevision).toBeGreaterThanOrEqual(facts.revision);
    // the API server served what the snapshot holds
    const listed = Object.fromEntries(report.resources.map((x: { name: string; items: number }) => [x.name, x.items]));
    expect(listed['configmaps']).toBe(facts.resources['/registry/configmaps']);
    expect(listed['deployments.apps']).toBe(1);
    // torn down: no scratch dir, no scratch process
    expect(report.scratch.removed).toBe(true);
    expect(existsSync(report.scratch.dir)).toBe(false);
    const meta = JSON.parse(readFileSync(`${snapshot}.json`, 'utf8'));
    expect(meta.lastDrill).toMatchObject({ verdict: 'restorable', rtoMs: report.rtoMs });
    expect(await liveFacts()).toEqual(before);
    // the run's report is under DIR/walkthroughs
    expect(readdirSync(join(up.dir, 'walkthroughs')).filter((n) => n.includes('-drill-')).length).toBeGreaterThan(0);
  }, 180_000);

  it('refuses a snapshot with one byte flipped, in drill and in restore, and leaves the live plane untouched', async () => {
    const bad = join(up.dir, 'snapshots', 'flipped.db');
    const bytes = readFileSync(snapshot);
    bytes[Math.floor(bytes.length / 2)] ^= 0x01;
    writeFileSync(bad, bytes);
    const before = await liveFacts();
    const drill = await cli(['backup', 'drill', bad, '--data-dir', up.dir, '--port-base', String(SCRATCH_BASE)]);
    expect(drill.code).toBe(1);
    expect(drill.stdout).toContain(`not restorable: verify: snapshot ${bad} is damaged: sha256 checksum mismatch`);
    const restore = await cli(['backup', 'restore', bad, '--data-dir', up.dir, '--yes']);
    expect(restore.code).toBe(1);
    expect(restore.stdout).toContain(`failed: snapshot ${bad} is damaged: sha256 checksum mismatch`);
    expect(restore.stdout).not.toContain('Stop the controllers');
    expect(await liveFacts()).toEqual(before);
    expect(alive(up.child.pid!)).toBe(true);
  }, 120_000);

  it('refuses a snapshot of a keyspace without Kubernetes objects, in drill and in restore', async () => {
    const plain = new MvccStore();
    plain.put({ key: Buffer.from('greeting'), value: Buffer.from('hello'), lease: 0n, prevKv: false, ignoreValue: false, ignoreLease: false });
    const data = encodeSnapshotData({ consistentIndex: 3, membership: new Membership().toSnapshot(), mvcc: plain.snapshot() });
    const file = join(up.dir, 'snapshots', 'plain.db');
    writeFileSync(file, encodeSnapshotFile({ revision: 2, compactRevision: -1, keyCount: 1, storeHash: plain.hash(), clusterId: 1n, memberId: 2n, consistentIndex: 3, data }));
    const before = await liveFacts();
    const drill = await cli(['backup', 'drill', file, '--data-dir', up.dir, '--port-base', String(SCRATCH_BASE)]);
    expect(drill.code).toBe(1);
    expect(drill.stdout).toContain('not restorable: verify: a Kubernetes keyspace: no Kubernetes objects: none of its 1 keys is under /registry/');
    const restore = await cli(['backup', 'restore', file, '--data-dir', up.dir, '--yes']);
    expect(restore.code).toBe(1);
    expect(restore.stdout).toContain(`refusing to restore the control plane from ${file}: no Kubernetes objects`);
    expect(await liveFacts()).toEqual(before);
  }, 120_000);
});

describe('pilothouse backup restore', () => {
  it('brings back exactly the snapshot: later objects gone everywhere, watchers relist, revisions forward, the Deployment converges', async () => {
    await kubectlOk(['create', 'configmap', 'later', '--from-literal=k=v']);
    // the list's own resourceVersion (kubectl get -o json prints a List without one)
    const oldRv = JSON.parse(await kubectlOk(['get', '--raw', '/api/v1/namespaces/default/configmaps'])).metadata.resourceVersion as string;
    expect(Number(oldRv)).toBeGreaterThan(0);
    const revBefore = await currentRevision();

    // an informer on configmaps, restarted on errors as controllers do
    const kc = new KubeConfig();
    kc.loadFromFile(join(up.dir, 'kubeconfig'));
    const core = kc.makeApiClient((await import('@kubernetes/client-node')).CoreV1Api);
    const path = '/api/v1/namespaces/default/configmaps';
    const informer = new ListWatch<V1ConfigMap>(path, new Watch(kc), () => core.listNamespacedConfigMap({ namespace: 'default' }), false);
    const deleted: string[] = [];
    let stopped = false;
    informer.on('delete', (o: KubernetesObject) => deleted.push(o.metadata!.name!));
    informer.on('error', () => {
      if (!stopped) setTimeout(() => void informer.start().catch(() => undefined), 500);
    });
    await informer.start();
    await eventually('the informer to see "later"', () => informer.list('default').some((o) => o.metadata?.name === 'later'));

    const r = await cli(['backup', 'restore', snapshot, '--data-dir', up.dir, '--yes'], 150_000);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('Disaster recovery from a snapshot: succeeded');
    restoredHost = Number(readFileSync(join(up.dir, 'controlplane.pid'), 'utf8'));
    expect(restoredHost).not.toBe(up.child.pid);
    await eventually('the first up to have exited', () => up.child.exitCode !== null || up.child.signalCode !== null, { timeoutMs: 30_000 });

    // kubectl and etcdctl: the later object gone, the earlier ones back
    const names = (await kubectlOk(['get', 'configmaps', '-o', 'name'])).split('\n');
    expect(names).toContain('configmap/early');
    expect(names).not.toContain('configmap/later');
    expect((await up.kubectl(['get', 'configmap', 'later'])).stderr).toContain('NotFound');
    expect((await up.etcdctl(['get', '/registry/configmaps/default/later', '--print-value-only'])).stdout).toBe('');
    expect((await up.etcdctl(['get', '/registry/configmaps/default/early', '--keys-only'])).stdout).toContain('early');
    // revisions moved forward past the old cluster's, and the old ones are compacted
    expect(await currentRevision()).toBeGreaterThan(revBefore);
    const etcdWatch = await up.etcdctl(['watch', '--rev', String(revBefore), '/registry/configmaps/default/later']);
    expect(etcdWatch.stdout + etcdWatch.stderr).toContain('required revision has been compacted');

    // a watch from the old resourceVersion: 410 Gone
    const events: string[] = [];
    const gone = await new Promise<number | string | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(`no 410 within 20 s; events: ${events.join(', ')}`), 20_000);
      void new Watch(kc)
        .watch(
          path,
          { resourceVersion: oldRv },
          (phase, obj: { code?: number; metadata?: { name?: string } }) => {
            events.push(`${phase} ${obj.metadata?.name ?? obj.code}`);
            if (phase === 'ERROR') resolve(obj.code);
          },
          (err: { statusCode?: number; code?: number } | null) => resolve(err?.statusCode ?? err?.code ?? `ended: ${String(err)}; events: ${events.join(', ')}`),
        )
        .catch((err: { statusCode?: number; code?: number }) => resolve(err.statusCode ?? err.code))
        .finally(() => timer.unref());
    });
    expect(gone).toBe(410);
    // the informer relisted: "later" deleted from its cache, "early" kept
    await eventually('the informer to drop "later"', () => !informer.list('default').some((o) => o.metadata?.name === 'later') && deleted.includes('later'), { timeoutMs: 60_000 });
    expect(informer.list('default').some((o) => o.metadata?.name === 'early')).toBe(true);
    stopped = true;
    informer.stop();

    // the controllers converge on the restored state
    await kubectlOk(['delete', 'pods', '-l', 'app=web', '--wait=false']);
    await eventually(
      'the Deployment to have its 2 Pods back',
      async () => {
        const pods = JSON.parse(await kubectlOk(['get', 'pods', '-l', 'app=web', '-o', 'json'])).items as { metadata: { deletionTimestamp?: string }; status?: { phase?: string } }[];
        return pods.filter((p) => !p.metadata.deletionTimestamp && p.status?.phase === 'Running').length === 2;
      },
      { timeoutMs: 90_000 },
    );
  }, 300_000);

  it('restores a stopped plane too: starts `up` detached with the layout of DIR/etcdctl.env, revisions bumped past any the old cluster could have had', async () => {
    process.kill(restoredHost!, 'SIGTERM');
    await eventually('the plane host to exit', () => !alive(restoredHost!), { timeoutMs: 30_000 });
    const r = await cli(['backup', 'restore', snapshot, '--data-dir', up.dir, '--yes'], 150_000);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('live cluster not answering: bumping by 1000000000');
    restoredHost = Number(readFileSync(join(up.dir, 'controlplane.pid'), 'utf8'));
    const log = readFileSync(join(up.dir, 'logs', 'up.log'), 'utf8');
    expect(log).toContain(`endpoints https://127.0.0.1:${PORT_BASE},`);
    expect(log).toContain('pilothouse: control plane ready');
    expect((await kubectlOk(['get', 'configmap', 'early', '-o', 'name'])).trim()).toBe('configmap/early');
    expect(await currentRevision()).toBeGreaterThan(1_000_000_000);
  }, 200_000);
});
