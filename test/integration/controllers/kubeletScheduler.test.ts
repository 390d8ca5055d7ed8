// The scheduler and the simulated kubelets against a real control plane
// (3 Pilothouse etcd members + pilothouse apiserver), driven with kubectl
// 1.32: bare pods go Pending → bound → Running within 5 s, `kubectl describe
// pod` tells the lifecycle with the real components' events, a pod that fits
// nowhere gets kube's FailedScheduling text and PodScheduled=False, and a
// deleted pod is stopped by its kubelet and goes away. Ports 29200–29206.

import { setMaxListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientsFromFile, DEFAULT_CONTROLLER_OPTIONS, newEventRecorder, realClock, SharedInformerFactory, type ControllerContext, type KubeClients } from '../../../main/client/kube';
import { startScheduler } from '../../../main/controllers/scheduler';
import { startKubelets } from '../../../main/controllers/kubelet';
import { reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';
import { eventually } from '../../support/waitFor';

const waitOpts = { intervalMs: 100, detail: () => logs.slice(-20).join('\n') };

let api: TestApiServer;
let clients: KubeClients;
const ac = new AbortController();
// Every informer, kubelet loop and sleep listens on the one stop signal.
setMaxListeners(0, ac.signal);
const factories: SharedInformerFactory[] = [];
const logs: string[] = [];

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
    options: { ...DEFAULT_CONTROLLER_OPTIONS, nodes: 3 },
    signal: ac.signal,
    log: (m) => logs.push(`${component}: ${m}`),
  };
}

async function kubectl(...args: string[]): Promise<string> {
  const r = await api.kubectl(args, { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

interface PodJson {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: { phase?: string; podIP?: string; hostIP?: string; conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>; containerStatuses?: Array<{ ready: boolean; started: boolean; state: { running?: { startedAt: string } }; imageID: string; containerID: string }> };
}

const pods = async (selector: string): Promise<PodJson[]> => (JSON.parse(await kubectl('get', 'pods', '-l', selector, '-o', 'json')) as { items: PodJson[] }).items;

beforeAll(async () => {
  api = await startTestApiServer(29200);
  clients = await clientsFromFile(api.layout.kubeconfig, 'pilothouse-test');
  await startScheduler(context('kube-scheduler'));
  await startKubelets(context('kubelet'));
}, 120_000);

afterAll(async () => {
  ac.abort();
  await Promise.all(factories.map((f) => f.stopped()));
  clients?.rest.close();
  await reapApiServers();
}, 60_000);

describe('scheduler + simulated kubelets', () => {
  it('registers 3 Ready nodes with kubelet v1.32.0 and their Leases', async () => {
    const out = await eventually('3 Ready nodes', async () => {
      const o = await kubectl('get', 'nodes', '--no-headers');
      return o.split('\n').filter((l) => / Ready /.test(l)).length === 3 && o;
    }, { ...waitOpts, timeoutMs: 15_000 });
    expect(out).toMatch(/node-1\s+Ready\s+<none>\s+\S+\s+v1\.32\.0/);
    const leases = await kubectl('get', 'leases', '-n', 'kube-node-lease', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.spec.holderIdentity} {.spec.leaseDurationSeconds}{"\\n"}{end}');
    expect(leases.trim().split('\n').sort()).toEqual(['node-1 node-1 40', 'node-2 node-2 40', 'node-3 node-3 40']);
  });

  it('3 bare pods: Running within 5 s of apply, spread over the nodes, describe tells the lifecycle', async () => {
    const manifest = [1, 2, 3]
      .map((i) => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-${i}\n  labels: {app: web}\nspec:\n  containers:\n  - name: nginx\n    image: nginx\n    resources: {requests: {cpu: 100m, memory: 64Mi}}\n`)
      .join('---\n');
    const r = await api.kubectl(['apply', '-f', '-'], { stdin: manifest });
    expect(r.code, r.stderr).toBe(0);
    const t0 = Date.now();
    const running = await eventually('3 pods Running', async () => {
      const ps = await pods('app=web');
      return ps.length === 3 && ps.every((p) => p.status.phase === 'Running') && ps;
    }, { ...waitOpts, timeoutMs: 5_000 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    for (const p of running) {
      expect(p.spec.nodeName).toMatch(/^node-[123]$/);
      expect(p.status.podIP).toMatch(new RegExp(`^10\\.244\\.${p.spec.nodeName!.slice(5)}\\.\\d+$`));
      expect(p.status.conditions?.filter((c) => c.status === 'True').map((c) => c.type).sort()).toEqual(['ContainersReady', 'Initialized', 'PodReadyToStartContainers', 'PodScheduled', 'Ready']);
      expect(p.status.containerStatuses?.[0]).toMatchObject({ ready: true, started: true });
      expect(p.status.containerStatuses?.[0]?.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    }
    // Three equal pods on three empty nodes: least-allocated scoring puts one on each.
    expect(new Set(running.map((p) => p.spec.nodeName)).size).toBe(3);
    const d = await eventually('describe shows Started', async () => {
      const text = await kubectl('describe', 'pod', 'web-1');
      return /Started\s+\S+\s+kubelet\s+Started container nginx/.test(text) && text;
    }, { ...waitOpts, timeoutMs: 5_000 });
    const node = running.find((p) => p.metadata.name === 'web-1')!.spec.nodeName!;
    expect(d).toMatch(new RegExp(`Scheduled\\s+\\S+\\s+default-scheduler\\s+Successfully assigned default/web-1 to ${node}`));
    expect(d).toMatch(/Pulling\s+\S+\s+kubelet\s+Pulling image "nginx"/);
    expect(d).toMatch(/Pulled\s+\S+\s+kubelet\s+Successfully pulled image "nginx" in \d+(\.\d+)?m?s \(\d+(\.\d+)?m?s including waiting\)\. Image size: \d+ bytes\./);
    expect(d).toMatch(/Created\s+\S+\s+kubelet\s+Created container: nginx/);
    expect(d).toMatch(/Status:\s+Running/);
    expect(d).toMatch(/Container ID:\s+containerd:\/\//);
    // The event order is the lifecycle's.
    const order = ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started'].map((r) => d.search(new RegExp(`Normal\\s+${r}\\s`)));
    expect(order.every((v, i) => v > 0 && (i === 0 || v > order[i - 1]!))).toBe(true);
  }, 30_000);

  it('a pod that fits nowhere: FailedScheduling with kube text and PodScheduled=False', async () => {
    const r = await api.kubectl(['run', 'huge', '--image=nginx', '--overrides={"spec":{"containers":[{"name":"huge","image":"nginx","resources":{"requests":{"cpu":"64"}}}]}}']);
    expect(r.code, r.stderr).toBe(0);
    const msg = '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod..';
    const pod = await eventually('PodScheduled=False', async () => {
      const p = JSON.parse(await kubectl('get', 'pod', 'huge', '-o', 'json')) as PodJson;
      return p.status.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False') && p;
    }, { ...waitOpts, timeoutMs: 10_000 });
    expect(pod.status.phase).toBe('Pending');
    expect(pod.status.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({ reason: 'Unschedulable', message: msg });
    const d = await eventually('FailedScheduling event', async () => {
      const text = await kubectl('describe', 'pod', 'huge');
      return text.includes('FailedScheduling') && text;
    }, { ...waitOpts, timeoutMs: 5_000 });
    expect(d).toMatch(/Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/3 nodes are available: 3 Insufficient cpu\. preemption: 0\/3 nodes are available: 3 No preemption victims found for incoming pod\.\./);
    await kubectl('delete', 'pod', 'huge', '--wait=false');
  }, 30_000);

  it('kubectl delete pod: the kubelet stops it (Killing) and it is gone', async () => {
    const before = JSON.parse(await kubectl('get', 'pod', 'web-2', '-o', 'json')) as PodJson;
    expect(before.status.phase).toBe('Running');
    const t0 = Date.now();
    await kubectl('delete', 'pod', 'web-2', '--timeout=20s');
    expect(Date.now() - t0).toBeLessThan(10_000);
    const r = await api.kubectl(['get', 'pod', 'web-2']);
    expect(r.stderr).toContain('pods "web-2" not found');
    const ev = await kubectl('get', 'events', '--field-selector', 'involvedObject.name=web-2,reason=Killing', '-o', 'jsonpath={.items[*].message}');
    expect(ev).toBe('Stopping container nginx');
  }, 30_000);
});
