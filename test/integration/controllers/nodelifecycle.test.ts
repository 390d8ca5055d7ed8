// Node lifecycle against a real control plane, with kubectl 1.32: a paused
// simulated node (a network partition, switched by the Node annotation
// kubelet.pilothouse.dev/state) stops renewing its Lease; after the (short,
// test) grace period the node lifecycle controller sets Ready=Unknown with
// NodeStatusUnknown, taints it unreachable NoSchedule+NoExecute, evicts pods
// that do not tolerate that at once, pods with tolerationSeconds after it,
// and leaves pods tolerating it forever; a Deployment's pod is replaced on
// another node. Resumed, the node is Ready, the taints go, and its kubelet
// finishes the evicted pods' termination. Ports 29220–29226.

import { setMaxListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientsFromFile, DEFAULT_CONTROLLER_OPTIONS, newEventRecorder, realClock, SharedInformerFactory, type ControllerContext, type KubeClients } from '../../../main/client/kube';
import { startScheduler } from '../../../main/controllers/scheduler';
import { startKubelets } from '../../../main/controllers/kubelet';
import { startNodeLifecycleController } from '../../../main/controllers/nodelifecycle';
import { startControllerManager } from '../../../main/controllers/manager';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { eventually } from '../../support/waitFor';

const waitOpts = { intervalMs: 200, detail: () => logs.slice(-20).join('\n') };

let api: TestApiServer;
let clients: KubeClients;
const ac = new AbortController();
setMaxListeners(0, ac.signal);
const factories: SharedInformerFactory[] = [];
const logs: string[] = [];
// Short for the test, yet well above the 1 s renew interval even on a loaded machine (kube: 50 s vs 10 s).
const GRACE_MS = 10_000;

function context(component: string): ControllerContext {
  const informers = new SharedInformerFactory(clients.rest, { resyncMs: 30_000 });
  informers.start(ac.signal);
  factories.push(informers);
  return {
    component,
    clients,
    informers,
    recorder: (c, host) => newEventRecorder(clients.rest, { component: c, host }),
    nodeClients: async () => clients,
    clock: realClock,
    options: { ...DEFAULT_CONTROLLER_OPTIONS, nodes: 3, nodeMonitorPeriodMs: 500, nodeMonitorGracePeriodMs: GRACE_MS, nodeLeaseRenewIntervalMs: 1_000, nodeStatusUpdateFrequencyMs: 1_000 },
    signal: ac.signal,
    log: (m) => logs.push(`${component}: ${m}`),
  };
}

async function kubectl(...args: string[]): Promise<string> {
  const r = await api.kubectl(args, { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

interface Obj {
  metadata: { name: string; deletionTimestamp?: string; labels?: Record<string, string> };
  spec: { nodeName?: string; taints?: Array<{ key: string; effect: string; timeAdded?: string }> };
  status: { phase?: string; conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}
const getJson = async (...args: string[]): Promise<Obj> => JSON.parse(await kubectl('get', ...args, '-o', 'json')) as Obj;
const list = async (...args: string[]): Promise<Obj[]> => (JSON.parse(await kubectl('get', ...args, '-o', 'json')) as { items: Obj[] }).items;

function pinnedPod(name: string, tolerations = ''): string {
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  labels: {pinned: "yes"}\nspec:\n  nodeSelector: {kubernetes.io/hostname: node-2}\n  terminationGracePeriodSeconds: 5\n${tolerations}  containers:\n  - name: app\n    image: nginx:1.27\n`;
}

beforeAll(async () => {
  // DefaultTolerationSeconds would give every pod 300 s of not-ready/unreachable tolerance;
  // these pods state their own tolerations (or none) to show each eviction rule.
  api = await startTestApiServer(29220, ['--disable-admission-plugins=ServiceAccount,DefaultTolerationSeconds']);
  clients = await clientsFromFile(api.layout.kubeconfig, 'pilothouse-test');
  await startControllerManager(context('kube-controller-manager'));
  await startNodeLifecycleController(context('kube-controller-manager'));
  await startScheduler(context('kube-scheduler'));
  await startKubelets(context('kubelet'));
}, 120_000);

afterAll(async () => {
  ac.abort();
  await Promise.all(factories.map((f) => f.stopped()));
  clients?.rest.close();
  await reapApiServers();
}, 60_000);

describe('node lifecycle', () => {
  it('a paused node goes Unknown, is tainted, its pods are evicted by their tolerations and replaced; resumed it recovers', async () => {
    await eventually('3 Ready nodes', async () => (await kubectl('get', 'nodes', '--no-headers')).split('\n').filter((l) => / Ready /.test(l)).length === 3, { ...waitOpts, timeoutMs: 15_000 });
    const manifest = [
      pinnedPod('plain'),
      pinnedPod('tolerates-8s', '  tolerations:\n  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 8}\n'),
      pinnedPod('tolerates-forever', '  tolerations:\n  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute}\n'),
    ].join('---\n');
    const r = await api.kubectl(['apply', '-f', '-'], { stdin: manifest });
    expect(r.code, r.stderr).toBe(0);
    await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=3');
    const running = await eventually('6 pods Running', async () => {
      const ps = await list('pods');
      return ps.length === 6 && ps.every((p) => p.status.phase === 'Running') && ps;
    }, { ...waitOpts, timeoutMs: 20_000 });
    const webOnNode2 = running.filter((p) => p.metadata.name.startsWith('web-') && p.spec.nodeName === 'node-2').map((p) => p.metadata.name);

    const paused = Date.now();
    await kubectl('annotate', 'node', 'node-2', 'kubelet.pilothouse.dev/state=paused');
    const node = await eventually('node-2 Ready=Unknown', async () => {
      const n = await getJson('node', 'node-2');
      return n.status.conditions?.find((c) => c.type === 'Ready')?.status === 'Unknown' && n;
    }, { ...waitOpts, timeoutMs: GRACE_MS + 10_000 });
    // Not before the grace period (the last renewal was at most one renew interval before the pause).
    expect(Date.now() - paused).toBeGreaterThanOrEqual(GRACE_MS - 1_000);
    expect(node.status.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
    const tainted = await eventually('unreachable taints', async () => {
      const n = await getJson('node', 'node-2');
      return (n.spec.taints ?? []).length === 2 && n;
    }, { ...waitOpts, timeoutMs: 5_000 });
    expect(tainted.spec.taints!.map((t) => `${t.key}:${t.effect}`).sort()).toEqual(['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
    expect(await kubectl('get', 'nodes', 'node-2', '--no-headers')).toMatch(/node-2\s+NotReady/);
    // Other nodes keep heartbeating.
    expect((await getJson('node', 'node-1')).status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');

    // Without a toleration: evicted at once. The kubelet is partitioned, so the pod stays Terminating.
    const plain = await eventually('plain evicted', async () => {
      const p = await getJson('pod', 'plain');
      return p.metadata.deletionTimestamp ? p : undefined;
    }, { ...waitOpts, timeoutMs: 5_000 });
    // With tolerationSeconds: 8 s after the taint. deletionTimestamp is eviction time + the 5 s grace period for both.
    const tolerating = await eventually('tolerates-8s evicted', async () => {
      const p = await getJson('pod', 'tolerates-8s');
      return p.metadata.deletionTimestamp ? p : undefined;
    }, { ...waitOpts, timeoutMs: 15_000 });
    const taintAdded = Date.parse(tainted.spec.taints!.find((t) => t.effect === 'NoExecute')!.timeAdded!);
    const evictedAt = (p: Obj): number => Date.parse(p.metadata.deletionTimestamp!) - 5_000;
    const why = JSON.stringify({ taintAdded, plain: plain.metadata.deletionTimestamp, tolerating: tolerating.metadata.deletionTimestamp, logs: logs.filter((l) => l.includes('node-lifecycle')) });
    expect(evictedAt(tolerating), why).toBeGreaterThanOrEqual(taintAdded + 8_000);
    expect(evictedAt(tolerating), why).toBeGreaterThan(evictedAt(plain));
    const ev = await kubectl('get', 'events', '--field-selector', 'involvedObject.name=plain,reason=TaintManagerEviction', '-o', 'jsonpath={.items[*].message}');
    expect(ev).toBe('Marking for deletion Pod default/plain');
    // The Deployment's pod on node-2 is replaced elsewhere.
    if (webOnNode2.length) {
      await eventually('web replaced off node-2', async () => {
        const ps = (await list('pods', '-l', 'app=web')).filter((p) => !p.metadata.deletionTimestamp && p.status.phase === 'Running');
        return ps.length === 3 && ps.every((p) => p.spec.nodeName !== 'node-2');
      }, { ...waitOpts, timeoutMs: 15_000 });
    }
    const forever = await getJson('pod', 'tolerates-forever');
    expect(forever.metadata.deletionTimestamp).toBeUndefined();
    expect(forever.status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');

    // Resume: Ready again, taints removed, the kubelet completes the evictions.
    await kubectl('annotate', 'node', 'node-2', 'kubelet.pilothouse.dev/state=running', '--overwrite');
    await eventually('node-2 Ready without taints', async () => {
      const n = await getJson('node', 'node-2');
      return n.status.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && (n.spec.taints ?? []).length === 0;
    }, { ...waitOpts, timeoutMs: 10_000 });
    await eventually('evicted pods gone', async () => {
      const names = (await list('pods', '-l', 'pinned=yes')).map((p) => p.metadata.name);
      return names.length === 1 && names[0] === 'tolerates-forever';
    }, { ...waitOpts, timeoutMs: 15_000 });
  }, 120_000);
});
