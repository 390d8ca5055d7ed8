// The controllers' client toolkit against a real control plane (Pilothouse
// etcd ×3 + `pilothouse apiserver`): informers see kubectl's changes and
// recover from a 410 by relisting; the event recorder's Events read in
// kubectl as a real component's (count aggregation); two LeaderElectors on
// one Lease: one leads, and when it dies without releasing, the other takes
// over once the lease has run out. Ports 29000–29006.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../../support/apiserver';
import { SharedIndexInformer, INDEX_NODE_NAME, restListerWatcher, type KubeObject, type ListerWatcher } from '../../../../main/client/kube/informer';
import { SharedInformerFactory } from '../../../../main/client/kube/informerFactory';
import { newEventRecorder } from '../../../../main/client/kube/eventRecorder';
import { LeaderElector } from '../../../../main/client/kube/leaderElection';
import { RESOURCES } from '../../../../main/client/kube/resources';
import { clientsFromFile, type KubeClients } from '../../../../main/client/kube/rest';
import { eventually } from '../../../support/waitFor';

let api: TestApiServer;
let clients: KubeClients;

beforeAll(async () => {
  // A small configmaps window, so a watch from an early resourceVersion is answered 410.
  api = await startTestApiServer(29000, ['--watch-cache-sizes=configmaps#2']);
  clients = await clientsFromFile(api.layout.kubeconfig, 'client-test');
}, 90_000);

afterAll(async () => {
  clients?.rest.close();
  await reapApiServers();
});

const podYaml = (name: string, node?: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, labels: {app: inf}}
spec:
  ${node ? `nodeName: ${node}\n  ` : ''}containers: [{name: c, image: nginx}]
`;

describe('informers against the API server', () => {
  it('see kubectl create, label and delete with indexes, through a shared factory', async () => {
    const ctl = new AbortController();
    const factory = new SharedInformerFactory(clients.rest);
    const pods = factory.informer(RESOURCES.pods, { labelSelector: 'app=inf' });
    expect(factory.informer(RESOURCES.pods, { labelSelector: 'app=inf' })).toBe(pods);
    const log: string[] = [];
    pods.addEventHandler({
      add: (p) => log.push(`add ${p.metadata!.name}`),
      update: (o, n) => o.metadata!.resourceVersion !== n.metadata!.resourceVersion && log.push(`update ${n.metadata!.name} ${n.metadata!.labels?.tier ?? ''}`),
      delete: (p) => log.push(`delete ${p.metadata!.name}`),
    });
    factory.start(ctl.signal);
    expect(await factory.waitForCacheSync(ctl.signal)).toBe(true);
    expect((await api.kubectl(['apply', '-f', '-'], { stdin: podYaml('inf-a', 'node-9') })).code).toBe(0);
    await eventually('add', () => pods.list().length === 1, { timeoutMs: 10_000, intervalMs: 50 });
    expect(pods.byIndex(INDEX_NODE_NAME, 'node-9').map((p) => p.metadata!.name)).toEqual(['inf-a']);
    expect(pods.get('default/inf-a')?.kind).toBe('Pod');
    expect((await api.kubectl(['label', 'pod', 'inf-a', 'tier=web'])).code).toBe(0);
    await eventually('update', () => pods.get('default/inf-a')?.metadata?.labels?.tier === 'web', { timeoutMs: 10_000, intervalMs: 50 });
    expect((await api.kubectl(['delete', 'pod', 'inf-a', '--grace-period=0', '--force'])).code).toBe(0);
    await eventually('delete', () => pods.list().length === 0, { timeoutMs: 10_000, intervalMs: 50 });
    expect(log).toEqual(['add inf-a', 'update inf-a web', 'delete inf-a']);
    expect(pods.byIndex(INDEX_NODE_NAME, 'node-9')).toEqual([]);
    ctl.abort();
    await factory.stopped();
  }, 60_000);

  it('relists when its watch resourceVersion is too old (410), and keeps following', async () => {
    const real = restListerWatcher(clients.rest, RESOURCES.configmaps, { namespace: 'default' });
    const watchedFrom: string[] = [];
    let lists = 0;
    // The first list claims resourceVersion 1: long compacted out of the watch window, so the watch answers 410.
    const lw: ListerWatcher = {
      async list() {
        watchedFrom.push('list');
        const r = await real.list().catch((e: Error) => {
          watchedFrom.push(`list failed ${e.message}`);
          throw e;
        });
        watchedFrom.push(`listed ${r.resourceVersion}`);
        return lists++ === 0 ? { ...r, resourceVersion: '1' } : r;
      },
      watch(rv, onEvent, signal) {
        watchedFrom.push(rv);
        return real.watch(rv, (e) => (watchedFrom.push(`${e.type}:${e.type === 'ERROR' ? JSON.stringify(e.object) : e.object.metadata && JSON.stringify(e.object.metadata).slice(0, 60)}`), onEvent(e)), signal).then((end) => {
          if (end) watchedFrom.push(`ended:${end.message}`);
          return end;
        });
      },
    };
    // More configmap writes than the window holds: revision 1 falls out of it.
    for (let i = 0; i < 4; i++) expect((await api.kubectl(['create', 'configmap', `old-${i}`, `--from-literal=k=${i}`])).code).toBe(0);
    const errors: string[] = [];
    const inf = new SharedIndexInformer<KubeObject>(lw, { onError: (e) => errors.push(e.message) });
    const ctl = new AbortController();
    const done = inf.run(ctl.signal);
    await eventually('relist', () => inf.listCount === 2, { timeoutMs: 15_000, intervalMs: 50, detail: () => `watched from ${watchedFrom.join(' | ')}; errors ${errors.join(' | ')}` });
    const watches = watchedFrom.filter((w) => /^\d+$/.test(w));
    expect(watches[0]).toBe('1');
    // The server says 410 inside the stream (kube's watch cache does) or as the answer; either way the informer relisted.
    expect(watchedFrom.join('\n')).toMatch(/ERROR:.*"code":410|ended:too old resource version: 1 \(/);
    expect(Number(watches[1])).toBeGreaterThan(1);
    expect((await api.kubectl(['create', 'configmap', 'after-relist'])).code).toBe(0);
    await eventually('event after relist', () => inf.getByName('default', 'after-relist') !== undefined, { timeoutMs: 10_000, intervalMs: 50 });
    expect(inf.getByName('default', 'old-2')).toBeDefined();
    ctl.abort();
    await done;
  }, 60_000);
});

describe('event recorder', () => {
  it('writes Events kubectl reads like a component’s, and counts repeats on one Event', async () => {
    expect((await api.kubectl(['apply', '-f', '-'], { stdin: podYaml('ev-pod') })).code).toBe(0);
    const pod = JSON.parse((await api.kubectl(['get', 'pod', 'ev-pod', '-o', 'json'])).stdout) as KubeObject;
    const rec = newEventRecorder(clients.rest, { component: 'default-scheduler' });
    rec.event(pod, 'Warning', 'FailedScheduling', '0/3 nodes are available: 3 Insufficient cpu.');
    rec.event(pod, 'Warning', 'FailedScheduling', '0/3 nodes are available: 3 Insufficient cpu.');
    rec.event(pod, 'Warning', 'FailedScheduling', '0/3 nodes are available: 3 Insufficient cpu.');
    rec.event(pod, 'Normal', 'Scheduled', 'Successfully assigned default/ev-pod to node-1');
    await rec.flush();
    const list = JSON.parse((await api.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=ev-pod', '-o', 'json'])).stdout) as { items: Record<string, any>[] };
    const byReason = Object.fromEntries(list.items.map((e) => [e.reason, e]));
    expect(list.items).toHaveLength(2);
    expect(byReason.FailedScheduling).toMatchObject({
      type: 'Warning',
      count: 3,
      source: { component: 'default-scheduler' },
      involvedObject: { kind: 'Pod', name: 'ev-pod', namespace: 'default', uid: pod.metadata!.uid, apiVersion: 'v1' },
    });
    expect(byReason.FailedScheduling.metadata.name).toMatch(/^ev-pod\.[0-9a-f]+$/);
    expect(byReason.Scheduled.count).toBe(1);
    const describe = await api.kubectl(['describe', 'pod', 'ev-pod']);
    expect(describe.stdout).toMatch(/Warning\s+FailedScheduling\s+.*default-scheduler\s+0\/3 nodes are available: 3 Insufficient cpu\./);
    expect(describe.stdout).toMatch(/Normal\s+Scheduled\s+.*default-scheduler\s+Successfully assigned default\/ev-pod to node-1/);
  }, 60_000);

  it('records events of cluster-scoped objects in the default namespace', async () => {
    const rec = newEventRecorder(clients.rest, { component: 'node-controller' });
    rec.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-x', uid: 'u-node-x' } }, 'Normal', 'RegisteredNode', 'Node node-x event: Registered Node node-x in Controller');
    await rec.flush();
    const out = await api.kubectl(['get', 'events', '-n', 'default', '--field-selector', 'involvedObject.kind=Node', '-o', 'jsonpath={.items[*].message}']);
    expect(out.stdout).toContain('Registered Node node-x in Controller');
  }, 30_000);
});

describe('leader election', () => {
  it('one of two candidates leads; when it dies without releasing, the other takes over after the lease runs out', async () => {
    const cfg = { namespace: 'kube-system', name: 'le-test', leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 400 };
    const state = { a: false, b: false };
    const mk = (id: 'a' | 'b') =>
      new LeaderElector(clients.rest, { ...cfg, identity: `host_${id}`, onStartedLeading: () => (state[id] = true), onStoppedLeading: () => (state[id] = false) });
    const ca = new AbortController();
    const cb = new AbortController();
    const a = mk('a');
    const runA = a.run(ca.signal);
    await eventually('a leads', () => state.a, { timeoutMs: 10_000, intervalMs: 50 });
    const b = mk('b');
    const runB = b.run(cb.signal);
    // b keeps trying for well over a retry period and never leads while a renews.
    await new Promise((r) => setTimeout(r, 2000));
    expect(state).toEqual({ a: true, b: false });
    expect(b.leader()).toBe('host_a');
    // a "dies": stops renewing, no release.
    ca.abort();
    await runA;
    const diedAt = Date.now();
    await eventually('b leads', () => state.b, { timeoutMs: 10_000, intervalMs: 50 });
    const took = Date.now() - diedAt;
    expect(took).toBeGreaterThan(1000);
    expect(took).toBeLessThan(cfg.leaseDurationMs + 2 * cfg.retryPeriodMs * 2.2 + 1000);
    const lease = JSON.parse((await api.kubectl(['get', 'lease', '-n', 'kube-system', 'le-test', '-o', 'json'])).stdout) as { spec: Record<string, unknown> };
    expect(lease.spec).toMatchObject({ holderIdentity: 'host_b', leaseDurationSeconds: 3, leaseTransitions: 1 });
    expect(String(lease.spec.renewTime)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    cb.abort();
    await runB;
  }, 60_000);
});
