// The controller manager's other controllers through kubectl on a real
// control plane: a default ServiceAccount and kube-root-ca.crt in every new namespace, Endpoints
// following a Service's ready pods, and namespace deletion (the API server
// keeps a Terminating namespace until the namespace controller has emptied
// it and PUT namespaces/<n>/finalize).

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapApiServers } from '../../support/apiserver';
import { startManagerControlPlane, type ManagerControlPlane } from './managerControlPlane';
import { eventually } from '../../support/waitFor';

const PORT_BASE = 29600;

let cp: ManagerControlPlane;

beforeAll(async () => {
  cp = await startManagerControlPlane(PORT_BASE);
}, 150_000);

afterAll(async () => {
  await cp?.stop();
  await reapApiServers();
}, 30_000);

interface Endpoints {
  metadata: { labels?: Record<string, string> };
  subsets?: { addresses?: { ip: string; nodeName?: string; targetRef: { kind: string; name: string } }[]; notReadyAddresses?: { ip: string }[]; ports?: { name?: string; port: number; protocol: string }[] }[];
}

describe('controller manager', () => {
  it('a new namespace gets a default ServiceAccount, and gets it back when it is deleted', async () => {
    await cp.kubectl('create', 'namespace', 'team-a');
    await eventually('default ServiceAccount', async () => (await cp.api.kubectl(['get', 'serviceaccount', 'default', '-n', 'team-a'])).code === 0, { timeoutMs: 15_000, intervalMs: 200 });
    await cp.kubectl('delete', 'serviceaccount', 'default', '-n', 'team-a');
    await eventually('default ServiceAccount recreated', async () => (await cp.api.kubectl(['get', 'serviceaccount', 'default', '-n', 'team-a'])).code === 0, { timeoutMs: 15_000, intervalMs: 200 });
  }, 40_000);

  it('every namespace gets kube-root-ca.crt holding the cluster CA; an edited or deleted one is put back', async () => {
    await cp.kubectl('create', 'namespace', 'team-ca');
    const ca = readFileSync(cp.api.layout.pki.ca.cert, 'utf8');
    const caOf = async (): Promise<string | undefined> => {
      const r = await cp.api.kubectl(['get', 'configmap', 'kube-root-ca.crt', '-n', 'team-ca', '-o', 'json']);
      return r.code === 0 ? (JSON.parse(r.stdout) as { data?: Record<string, string> }).data?.['ca.crt'] : undefined;
    };
    await eventually('kube-root-ca.crt', async () => (await caOf()) === ca, { timeoutMs: 15_000, intervalMs: 200 });
    await cp.kubectl('patch', 'configmap', 'kube-root-ca.crt', '-n', 'team-ca', '--type=merge', '-p', '{"data":{"ca.crt":"tampered"}}');
    await eventually('kube-root-ca.crt restored', async () => (await caOf()) === ca, { timeoutMs: 15_000, intervalMs: 200 });
    await cp.kubectl('delete', 'configmap', 'kube-root-ca.crt', '-n', 'team-ca');
    await eventually('kube-root-ca.crt recreated', async () => (await caOf()) === ca, { timeoutMs: 15_000, intervalMs: 200 });
  }, 60_000);

  it('kubectl delete ns waits while the namespace is Terminating; creates in it are refused; the controller empties and finalizes it', async () => {
    await cp.kubectl('create', 'namespace', 'doomed');
    await cp.kubectl('create', 'configmap', 'keep', '-n', 'doomed', '--from-literal=k=v');
    const created = await cp.getJson<{ spec: { finalizers: string[] } }>('get', 'namespace', 'doomed');
    expect(created.spec.finalizers).toEqual(['kubernetes']);
    // A finalizer of our own holds the namespace in Terminating after the controller is done.
    await cp.kubectl('patch', 'namespace', 'doomed', '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}');
    await cp.kubectl('delete', 'namespace', 'doomed', '--wait=false');
    const ns = await cp.getJson<{ metadata: { deletionTimestamp?: string }; status: { phase: string } }>('get', 'namespace', 'doomed');
    expect(ns.status.phase).toBe('Terminating');
    expect(ns.metadata.deletionTimestamp).toBeTruthy();

    const refused = await cp.api.kubectl(['create', 'configmap', 'late', '-n', 'doomed']);
    expect(refused.code).not.toBe(0);
    // kubectl create configmap words a server error its own way.
    expect(refused.stderr).toContain('error: failed to create configmap: configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated');

    // The controller deletes the content and removes the `kubernetes` finalizer.
    await eventually('spec.finalizers emptied by the namespace controller', async () => {
      const cur = await cp.getJson<{ spec?: { finalizers?: string[] } }>('get', 'namespace', 'doomed');
      return (cur.spec?.finalizers ?? []).length === 0;
    }, { timeoutMs: 30_000, intervalMs: 200 });
    expect((await cp.api.kubectl(['get', 'configmap', 'keep', '-n', 'doomed'])).stderr).toContain('configmaps "keep" not found');

    const waiting = cp.api.kubectl(['delete', 'namespace', 'doomed', '--timeout=60s'], { timeoutMs: 70_000 });
    await new Promise((r) => setTimeout(r, 1_000));
    await cp.kubectl('patch', 'namespace', 'doomed', '--type=merge', '-p', '{"metadata":{"finalizers":null}}');
    const done = await waiting;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('namespace "doomed" deleted');
    expect((await cp.api.kubectl(['get', 'namespace', 'doomed'])).stderr).toContain('namespaces "doomed" not found');
    expect((await cp.api.kubectl(['create', 'configmap', 'after', '-n', 'doomed'])).stderr).toContain('namespaces "doomed" not found');
  }, 120_000);

  it('a namespace without extra finalizers goes once kubectl delete ns returns; default cannot be deleted', async () => {
    await cp.kubectl('create', 'namespace', 'brief');
    await cp.kubectl('create', 'configmap', 'c', '-n', 'brief');
    const out = await cp.kubectl('delete', 'namespace', 'brief', '--timeout=60s');
    expect(out).toContain('namespace "brief" deleted');
    expect((await cp.api.kubectl(['get', 'namespace', 'brief'])).stderr).toContain('namespaces "brief" not found');
    const refused = await cp.api.kubectl(['delete', 'namespace', 'default']);
    expect(refused.stderr).toContain('Error from server (Forbidden): namespaces "default" is forbidden: this namespace may not be deleted');
  }, 120_000);

  it('Endpoints list the ready pods of a Service by named targetPort and go with the Service', async () => {
    const manifest = `apiVersion: v1
kind: Service
metadata: {name: echo, labels: {team: a}}
spec:
  selector: {app: echo}
  ports:
  - {name: http, port: 80, targetPort: web}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: echo}
spec:
  replicas: 2
  selector: {matchLabels: {app: echo}}
  template:
    metadata: {labels: {app: echo}}
    spec:
      containers:
      - name: echo
        image: nginx
        ports: [{name: web, containerPort: 8080}]
`;
    const r = await cp.api.kubectl(['apply', '-f', '-'], { stdin: manifest });
    expect(r.code, r.stderr).toBe(0);
    await cp.kubectl('rollout', 'status', 'deployment/echo', '--timeout=30s');
    const ep = await eventually('two ready addresses', async () => {
      const e = await cp.getJson<Endpoints>('get', 'endpoints', 'echo');
      return e.subsets?.[0]?.addresses?.length === 2 ? e : undefined;
    }, { timeoutMs: 20_000, intervalMs: 200 });
    expect(ep.metadata.labels).toEqual({ team: 'a' });
    expect(ep.subsets).toHaveLength(1);
    expect(ep.subsets![0].ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const pods = (await cp.getJson<{ items: { metadata: { name: string }; status: { podIP: string } }[] }>('get', 'pods', '-l', 'app=echo')).items;
    expect(ep.subsets![0].addresses!.map((a) => a.ip).sort()).toEqual(pods.map((p) => p.status.podIP).sort());
    for (const a of ep.subsets![0].addresses!) expect(a.targetRef.kind).toBe('Pod');

    await cp.kubectl('delete', 'service', 'echo');
    await eventually('endpoints removed with the service', async () => (await cp.api.kubectl(['get', 'endpoints', 'echo'])).stderr.includes('NotFound'), { timeoutMs: 15_000, intervalMs: 200 });
  }, 90_000);
});
