// Watches as clients consume them, against a real control plane:
// @kubernetes/client-node's informer sees ADDED/MODIFIED/DELETED for what
// kubectl does; a watch from a resourceVersion older than the watch cache's
// window gets 410 Expired inside the stream (and the informer relists); the
// informer keeps an exact picture across a kill -9 of the etcd leader and a
// restart of the API server (it resumes or relists, nothing is lost).

import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { AppsV1Api, KubeConfig, makeInformer, type V1Deployment } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, PORTS_APISERVER, reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { parseJsonWithBigIds } from '../../support/etcdctl';
import { eventually } from '../../support/waitFor';

let api: TestApiServer;
let kc: KubeConfig;

beforeAll(async () => {
  api = await startTestApiServer(PORTS_APISERVER.watch);
  kc = new KubeConfig();
  kc.loadFromFile(api.layout.kubeconfig);
}, 120_000);

afterAll(async () => {
  await reapApiServers();
});

async function ok(args: string[]): Promise<string> {
  const r = await api.kubectl(args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

describe('watch', () => {
  it('the client-node informer follows kubectl, across an etcd leader kill and an API server restart', async () => {
    const apps = kc.makeApiClient(AppsV1Api);
    const informer = makeInformer<V1Deployment>(kc, '/apis/apps/v1/namespaces/default/deployments', () => apps.listNamespacedDeployment({ namespace: 'default' }));
    const events: string[] = [];
    let stopped = false;
    informer.on('add', (d) => events.push(`ADDED ${d.metadata?.name}`));
    informer.on('update', (d) => events.push(`MODIFIED ${d.metadata?.name} ${d.spec?.replicas}`));
    informer.on('delete', (d) => events.push(`DELETED ${d.metadata?.name}`));
    informer.on('error', () => {
      // client-node stops on an error; a resuming client starts again (a relist).
      if (!stopped) setTimeout(() => void informer.start().catch(() => {}), 500);
    });
    await informer.start();
    try {
      await ok(['create', 'deployment', 'one', '--image=nginx']);
      await eventually('the informer', () => events.includes('ADDED one'), { timeoutMs: 20_000, intervalMs: 100, detail: () => `ADDED one in ${events}` });
      await ok(['scale', 'deploy', 'one', '--replicas=3']);
      await eventually('the informer', () => events.includes('MODIFIED one 3'), { timeoutMs: 20_000, intervalMs: 100, detail: () => `MODIFIED one 3 in ${events}` });
      await ok(['delete', 'deploy', 'one']);
      await eventually('the informer', () => events.includes('DELETED one'), { timeoutMs: 20_000, intervalMs: 100, detail: () => `DELETED one in ${events}` });

      // kill -9 the etcd leader: the API server's etcd watch fails over, the informer sees on.
      const leader = await etcdLeaderName();
      api.tc.cluster.member(leader).kill('SIGKILL');
      await api.tc.cluster.member(leader).waitExit();
      await okRetry(['create', 'deployment', 'two', '--image=nginx'], 30_000);
      await eventually('the informer', () => events.includes('ADDED two'), { timeoutMs: 30_000, intervalMs: 100, detail: () => `ADDED two in ${events}` });
      api.tc.cluster.member(leader).start();

      // Restart the API server: the informer's watch ends; it resumes (or relists after a 410).
      await api.restart();
      await okRetry(['create', 'deployment', 'three', '--image=nginx'], 30_000);
      await okRetry(['scale', 'deploy', 'two', '--replicas=2'], 30_000);
      await eventually('the informer', () => events.includes('ADDED three') && events.includes('MODIFIED two 2'), { timeoutMs: 40_000, intervalMs: 100, detail: () => `ADDED three, MODIFIED two 2 in ${events}` });

      const server = (await apiRequest(api.layout, 'GET', '/apis/apps/v1/namespaces/default/deployments')).json() as { items: V1Deployment[] };
      const want = server.items.map((d) => `${d.metadata!.name}@${d.metadata!.resourceVersion}`).sort();
      await eventually('the informer', () => JSON.stringify(informer.list('default').map((d) => `${d.metadata!.name}@${d.metadata!.resourceVersion}`).sort()) === JSON.stringify(want), { timeoutMs: 20_000, intervalMs: 100, detail: () => `informer ${JSON.stringify(informer.list('default').map((d) => `${d.metadata!.name}@${d.metadata!.resourceVersion}`))} = server ${JSON.stringify(want)}` });
      expect(want.map((w) => w.split('@')[0])).toEqual(['three', 'two']);
    } finally {
      stopped = true;
      await informer.stop();
    }
  }, 240_000);

  it('a watch from a resourceVersion older than the window gets 410 Expired inside the stream', async () => {
    const lines = await watchLines('/apis/apps/v1/namespaces/default/deployments?watch=true&resourceVersion=1', 1);
    const ev = JSON.parse(lines[0]!) as { type: string; object: { kind: string; code: number; reason: string; message: string } };
    expect(ev.type).toBe('ERROR');
    expect(ev.object).toMatchObject({ kind: 'Status', status: 'Failure', code: 410, reason: 'Expired' });
    expect(ev.object.message).toMatch(/^too old resource version: 1 \(\d+\)$/);
  }, 60_000);

  it('watch streams newline-delimited compact JSON; a Table watch sends column definitions once', async () => {
    const list = (await apiRequest(api.layout, 'GET', '/apis/apps/v1/namespaces/default/deployments')).json() as { metadata: { resourceVersion: string } };
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const pending = watchLines(`/apis/apps/v1/namespaces/default/deployments?watch=true&resourceVersion=${list.metadata.resourceVersion}`, 2, { accept });
    await new Promise((r) => setTimeout(r, 500));
    await ok(['scale', 'deploy', 'three', '--replicas=4']);
    await ok(['scale', 'deploy', 'three', '--replicas=5']);
    const lines = await pending;
    const [first, second] = lines.map((l) => JSON.parse(l) as { type: string; object: { kind: string; columnDefinitions: unknown[] | null; rows: { cells: unknown[] }[] } });
    expect(first!.type).toBe('MODIFIED');
    expect(first!.object.kind).toBe('Table');
    expect((first!.object.columnDefinitions ?? []).length).toBeGreaterThan(0);
    expect(first!.object.rows[0]!.cells.slice(0, 2)).toEqual(['three', '0/4']);
    expect(second!.object.columnDefinitions ?? []).toEqual([]);
    expect(second!.object.rows[0]!.cells.slice(0, 2)).toEqual(['three', '0/5']);
  }, 60_000);
});

async function okRetry(args: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api.kubectl(args);
    if (r.code === 0) return;
    if (Date.now() > deadline) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}\n${api.logTail(20)}`);
    await new Promise((res) => setTimeout(res, 500));
  }
}

async function etcdLeaderName(): Promise<string> {
  const r = await api.etcdctl(['endpoint', 'status', '-w', 'json']);
  const rows = parseJsonWithBigIds(r.stdout) as { Endpoint: string; Status: { header: { member_id: string }; leader: string } }[];
  const leader = rows.find((row) => row.Status.header.member_id === row.Status.leader);
  if (!leader) throw new Error(`no leader in ${r.stdout}`);
  return api.tc.cluster.layout.find((m) => m.clientUrl === leader.Endpoint)!.name;
}

/** The first n lines of a watch stream (then the connection is closed). */
function watchLines(path: string, n: number, headers: Record<string, string> = {}): Promise<string[]> {
  const pki = api.layout.pki;
  return new Promise((resolve, reject) => {
    const req = request(
      `${api.layout.url}${path}`,
      { ca: readFileSync(pki.ca.cert), cert: readFileSync(pki.admin.cert), key: readFileSync(pki.admin.key), headers },
      (res) => {
        let buf = '';
        const lines: string[] = [];
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          buf += d;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            lines.push(buf.slice(0, nl));
            buf = buf.slice(nl + 1);
          }
          if (lines.length >= n) {
            req.destroy();
            resolve(lines.slice(0, n));
          }
        });
        res.on('end', () => resolve(lines));
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no ${n} lines from ${path}`)), 30_000);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (e) => (e.message.startsWith('no ') ? reject(e) : undefined));
    req.end();
  });
}
