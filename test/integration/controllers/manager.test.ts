// The controller manager's other controllers through kubectl on a real
// control plane: a default ServiceAccount in every new namespace, Endpoints
// following a Service's ready pods. (Namespace deletion needs the API
// server's Terminating phase and namespaces/<n>/finalize, not served yet.)

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapApiServers } from '../harness/apiserver';
import { eventually, startManagerControlPlane, type ManagerControlPlane } from './managerControlPlane';

const PORT_BASE = 29420;

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
    await eventually(async () => (await cp.api.kubectl(['get', 'serviceaccount', 'default', '-n', 'team-a'])).code === 0, 15_000, 'default ServiceAccount');
    await cp.kubectl('delete', 'serviceaccount', 'default', '-n', 'team-a');
    await eventually(async () => (await cp.api.kubectl(['get', 'serviceaccount', 'default', '-n', 'team-a'])).code === 0, 15_000, 'default ServiceAccount recreated');
  }, 40_000);

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
    const ep = await eventually(async () => {
      const e = await cp.getJson<Endpoints>('get', 'endpoints', 'echo');
      return e.subsets?.[0]?.addresses?.length === 2 ? e : undefined;
    }, 20_000, 'two ready addresses');
    expect(ep.metadata.labels).toEqual({ team: 'a' });
    expect(ep.subsets).toHaveLength(1);
    expect(ep.subsets![0].ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const pods = (await cp.getJson<{ items: { metadata: { name: string }; status: { podIP: string } }[] }>('get', 'pods', '-l', 'app=echo')).items;
    expect(ep.subsets![0].addresses!.map((a) => a.ip).sort()).toEqual(pods.map((p) => p.status.podIP).sort());
    for (const a of ep.subsets![0].addresses!) expect(a.targetRef.kind).toBe('Pod');

    await cp.kubectl('delete', 'service', 'echo');
    await eventually(async () => (await cp.api.kubectl(['get', 'endpoints', 'echo'])).stderr.includes('NotFound'), 15_000, 'endpoints removed with the service');
  }, 90_000);
});
