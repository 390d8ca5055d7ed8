// Deployments end to end through kubectl against a real control plane with
// the controller manager, scheduler and simulated kubelets: apply → Running,
// rollout status, an image change within maxSurge/maxUnavailable, rollout
// undo, a deleted pod replaced, scale down, and the three deletion cascades.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapApiServers } from '../../support/apiserver';
import { startManagerControlPlane, type ManagerControlPlane } from './managerControlPlane';
import { eventually } from '../../support/waitFor';

const PORT_BASE = 29400;

interface Obj {
  metadata: { name: string; uid: string; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[]; deletionTimestamp?: string };
  spec: { replicas?: number; template?: { spec: { containers: { image: string }[] } } };
  status?: { phase?: string; replicas?: number; readyReplicas?: number; availableReplicas?: number; updatedReplicas?: number; observedGeneration?: number; conditions?: { type: string; status: string; reason: string; message: string }[] };
}
type List = { items: Obj[] };

function deploymentYaml(name: string, replicas: number, image: string, extra = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  revisionHistoryLimit: 5${extra}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: nginx
        image: ${image}
        resources: {requests: {cpu: 10m, memory: 16Mi}}
`;
}

let cp: ManagerControlPlane;

beforeAll(async () => {
  cp = await startManagerControlPlane(PORT_BASE);
}, 150_000);

afterAll(async () => {
  await cp?.stop();
  await reapApiServers();
}, 30_000);

const owned = (items: Obj[], uid: string): Obj[] => items.filter((o) => o.metadata.ownerReferences?.some((r) => r.uid === uid));
const running = (pods: Obj[]): Obj[] => pods.filter((p) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp);

describe('deployment controller with kubectl', () => {
  it('apply → a ReplicaSet <deploy>-<hash> and 3 Running pods; rollout status completes with kube conditions', async () => {
    const r = await cp.api.kubectl(['apply', '-f', '-'], { stdin: deploymentYaml('web', 3, 'nginx:1.26') });
    expect(r.code, r.stderr).toBe(0);
    const t0 = Date.now();
    const out = await cp.kubectl('rollout', 'status', 'deployment/web', '--timeout=30s');
    expect(out).toContain('deployment "web" successfully rolled out');
    expect(Date.now() - t0).toBeLessThan(15_000);

    const d = await cp.getJson<Obj>('get', 'deployment', 'web');
    const rss = owned((await cp.getJson<List>('get', 'rs')).items, d.metadata.uid);
    expect(rss).toHaveLength(1);
    const rs = rss[0];
    const hash = rs.metadata.labels!['pod-template-hash'];
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(rs.metadata.ownerReferences![0]).toMatchObject({ kind: 'Deployment', name: 'web', controller: true, blockOwnerDeletion: true });
    expect(rs.metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' });
    expect(d.metadata.annotations!['deployment.kubernetes.io/revision']).toBe('1');
    expect(d.status).toMatchObject({ replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
    const cond = Object.fromEntries((d.status!.conditions ?? []).map((c) => [c.type, c]));
    expect(cond.Available).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' });
    expect(cond.Progressing).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rs.metadata.name}" has successfully progressed.` });

    const pods = owned((await cp.getJson<List>('get', 'pods')).items, rs.metadata.uid);
    expect(running(pods)).toHaveLength(3);
    for (const p of pods) expect(p.metadata.name.startsWith(`web-${hash}-`)).toBe(true);
    const events = await cp.kubectl('get', 'events', '--field-selector', `involvedObject.name=${rs.metadata.name}`, '-o', 'jsonpath={range .items[*]}{.reason}:{.message}{"\\n"}{end}');
    expect(events).toMatch(/SuccessfulCreate:Created pod: web-/);
  }, 60_000);

  it('an image change rolls within maxSurge 1 / maxUnavailable 0; rollout undo brings the old ReplicaSet back as revision 3', async () => {
    const d = await cp.getJson<Obj>('get', 'deployment', 'web');
    const firstRS = owned((await cp.getJson<List>('get', 'rs')).items, d.metadata.uid)[0];

    // Watch the ReplicaSets' sizes during the rollout: never above replicas + maxSurge.
    let maxTotal = 0;
    let sampling = true;
    const sampler = (async () => {
      for (let i = 0; i < 500 && sampling; i++) {
        const list = await cp.clients.rest.get<List>('/apis/apps/v1/namespaces/default/replicasets');
        maxTotal = Math.max(maxTotal, owned(list.items, d.metadata.uid).reduce((n, rs) => n + (rs.spec.replicas ?? 0), 0));
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await cp.kubectl('set', 'image', 'deployment/web', 'nginx=nginx:1.27');
    const out = await cp.kubectl('rollout', 'status', 'deployment/web', '--timeout=40s');
    sampling = false;
    await sampler;
    expect(out).toContain('successfully rolled out');
    expect(maxTotal).toBeLessThanOrEqual(4);
    expect(maxTotal).toBe(4);

    const rss = owned((await cp.getJson<List>('get', 'rs')).items, d.metadata.uid);
    expect(rss).toHaveLength(2);
    const second = rss.find((rs) => rs.metadata.name !== firstRS.metadata.name)!;
    expect(second.metadata.annotations!['deployment.kubernetes.io/revision']).toBe('2');
    expect(second.spec.replicas).toBe(3);
    expect(rss.find((rs) => rs.metadata.name === firstRS.metadata.name)!.spec.replicas).toBe(0);
    const dEvents = await cp.kubectl('get', 'events', '--field-selector', 'involvedObject.kind=Deployment,involvedObject.name=web', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}');
    expect(dEvents).toContain(`Scaled up replica set ${second.metadata.name} from 0 to 1`);
    expect(dEvents).toContain(`Scaled down replica set ${firstRS.metadata.name} from 3 to 2`);

    const history = await cp.kubectl('rollout', 'history', 'deployment/web');
    expect(history).toMatch(/\n1\s/);
    expect(history).toMatch(/\n2\s/);

    await cp.kubectl('rollout', 'undo', 'deployment/web');
    await cp.kubectl('rollout', 'status', 'deployment/web', '--timeout=40s');
    const after = owned((await cp.getJson<List>('get', 'rs')).items, d.metadata.uid);
    expect(after).toHaveLength(2);
    const back = after.find((rs) => rs.metadata.name === firstRS.metadata.name)!;
    expect(back.spec.replicas).toBe(3);
    expect(back.metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '3', 'deployment.kubernetes.io/revision-history': '1' });
    const dd = await cp.getJson<Obj>('get', 'deployment', 'web');
    expect(dd.spec.template!.spec.containers[0].image).toBe('nginx:1.26');
    expect(dd.metadata.annotations!['deployment.kubernetes.io/revision']).toBe('3');
  }, 120_000);

  it('a deleted pod is replaced; scale 5 → 1 converges', async () => {
    const pods = running((await cp.getJson<List>('get', 'pods', '-l', 'app=web')).items);
    expect(pods).toHaveLength(3);
    await cp.kubectl('delete', 'pod', pods[0].metadata.name, '--wait=false');
    await eventually('a replacement pod', async () => {
      const now = running((await cp.getJson<List>('get', 'pods', '-l', 'app=web')).items);
      return now.length === 3 && !now.some((p) => p.metadata.name === pods[0].metadata.name);
    }, { timeoutMs: 20_000, intervalMs: 200 });

    await cp.kubectl('scale', 'deployment/web', '--replicas=5');
    await cp.kubectl('rollout', 'status', 'deployment/web', '--timeout=30s');
    expect(running((await cp.getJson<List>('get', 'pods', '-l', 'app=web')).items)).toHaveLength(5);
    await cp.kubectl('scale', 'deployment/web', '--replicas=1');
    await eventually('scale down to 1', async () => {
      const d = await cp.getJson<Obj>('get', 'deployment', 'web');
      const left = (await cp.getJson<List>('get', 'pods', '-l', 'app=web')).items;
      return d.status?.replicas === 1 && d.status.availableReplicas === 1 && left.length === 1;
    }, { timeoutMs: 30_000, intervalMs: 200 });
  }, 90_000);

  it('kubectl delete deployment (background) removes its ReplicaSets and pods', async () => {
    const d = await cp.getJson<Obj>('get', 'deployment', 'web');
    await cp.kubectl('delete', 'deployment', 'web');
    await eventually('ReplicaSets and pods of web gone', async () => {
      const rs = owned((await cp.getJson<List>('get', 'rs')).items, d.metadata.uid);
      const pods = (await cp.getJson<List>('get', 'pods', '-l', 'app=web')).items;
      return rs.length === 0 && pods.length === 0;
    }, { timeoutMs: 30_000, intervalMs: 200 });
  }, 60_000);

  it('foreground: the deployment stays (with foregroundDeletion) until its ReplicaSet and pods are gone', async () => {
    await cp.api.kubectl(['apply', '-f', '-'], { stdin: deploymentYaml('fg', 2, 'nginx') });
    await cp.kubectl('rollout', 'status', 'deployment/fg', '--timeout=30s');
    // Watch from now: the order of the DELETED events' resourceVersions (etcd
    // revisions) shows who went first, however fast the chain runs.
    const rest = cp.clients.rest;
    const deleted = new Map<string, number>();
    let markedForeground = false;
    const rv = (await rest.get<{ metadata: { resourceVersion: string } }>('/apis/apps/v1/namespaces/default/deployments')).metadata.resourceVersion;
    const watches = [
      rest.watch('/apis/apps/v1/namespaces/default/deployments', { fieldSelector: 'metadata.name=fg', resourceVersion: rv }, (e) => {
        const o = e.object as unknown as Obj & { metadata: { finalizers?: string[]; resourceVersion: string } };
        if (e.type === 'MODIFIED' && o.metadata.deletionTimestamp && o.metadata.finalizers?.includes('foregroundDeletion')) markedForeground = true;
        if (e.type === 'DELETED') deleted.set('deployment', Number(o.metadata.resourceVersion));
      }),
      rest.watch('/apis/apps/v1/namespaces/default/replicasets', { labelSelector: 'app=fg', resourceVersion: rv }, (e) => {
        if (e.type === 'DELETED') deleted.set('rs', Number((e.object as { metadata: { resourceVersion: string } }).metadata.resourceVersion));
      }),
      rest.watch('/api/v1/namespaces/default/pods', { labelSelector: 'app=fg', resourceVersion: rv }, (e) => {
        if (e.type === 'DELETED') deleted.set(`pod ${(e.object as unknown as Obj).metadata.name}`, Number((e.object as { metadata: { resourceVersion: string } }).metadata.resourceVersion));
      }),
    ];
    try {
      await cp.kubectl('delete', 'deployment', 'fg', '--cascade=foreground', '--wait=false');
      await eventually('deployment fg gone', async () => deleted.has('deployment'), { timeoutMs: 30_000, intervalMs: 200 });
    } finally {
      for (const w of watches) w.stop();
    }
    expect(markedForeground).toBe(true);
    expect(deleted.size).toBe(4); // the deployment, its ReplicaSet, two pods
    for (const [what, at] of deleted) if (what !== 'deployment') expect(at, what).toBeLessThan(deleted.get('deployment')!);
    expect((await cp.getJson<List>('get', 'rs', '-l', 'app=fg')).items).toHaveLength(0);
    expect((await cp.getJson<List>('get', 'pods', '-l', 'app=fg')).items).toHaveLength(0);
  }, 60_000);

  it('orphan: the ReplicaSet and pods stay, without the reference to the deployment', async () => {
    await cp.api.kubectl(['apply', '-f', '-'], { stdin: deploymentYaml('orph', 2, 'nginx') });
    await cp.kubectl('rollout', 'status', 'deployment/orph', '--timeout=30s');
    await cp.kubectl('delete', 'deployment', 'orph', '--cascade=orphan');
    const rs = await eventually('orphaned ReplicaSet', async () => {
      const items = (await cp.getJson<List>('get', 'rs', '-l', 'app=orph')).items;
      return items.length === 1 && !items[0].metadata.ownerReferences?.length ? items[0] : undefined;
    }, { timeoutMs: 20_000, intervalMs: 200 });
    expect(rs.spec.replicas).toBe(2);
    // The ReplicaSet keeps managing its pods.
    expect(owned((await cp.getJson<List>('get', 'pods', '-l', 'app=orph')).items, rs.metadata.uid)).toHaveLength(2);
    await cp.kubectl('delete', 'rs', rs.metadata.name);
  }, 60_000);
});
