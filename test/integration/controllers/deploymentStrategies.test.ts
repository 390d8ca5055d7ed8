// Recreate and revisionHistoryLimit through kubectl on a real control plane:
// Recreate takes every old pod away before the first new one exists, and
// old ReplicaSets beyond revisionHistoryLimit are deleted once scaled down.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapApiServers } from '../../support/apiserver';
import { startManagerControlPlane, type ManagerControlPlane } from './managerControlPlane';

const PORT_BASE = 29440;

let cp: ManagerControlPlane;
beforeAll(async () => {
  cp = await startManagerControlPlane(PORT_BASE);
}, 150_000);
afterAll(async () => {
  await cp?.stop();
  await reapApiServers();
}, 30_000);

interface Obj {
  metadata: { name: string; uid: string; resourceVersion: string; labels?: Record<string, string>; annotations?: Record<string, string>; creationTimestamp?: string };
  spec: { replicas?: number };
}
const yaml = (name: string, strategy: string, image: string, history = 10): string => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 2
  revisionHistoryLimit: ${history}
  strategy: {type: ${strategy}}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: c, image: ${image}}]}
`;

describe('deployment strategies', () => {
  it('Recreate: the last old pod is deleted before the first new pod is created', async () => {
    expect((await cp.api.kubectl(['apply', '-f', '-'], { stdin: yaml('rec', 'Recreate', 'nginx:1.26') })).code).toBe(0);
    await cp.kubectl('rollout', 'status', 'deployment/rec', '--timeout=30s');
    const rest = cp.clients.rest;
    const rv = (await rest.get<{ metadata: { resourceVersion: string } }>('/api/v1/namespaces/default/pods')).metadata.resourceVersion;
    const oldDeleted: number[] = [];
    const newAdded: number[] = [];
    let oldHash = '';
    const w = rest.watch('/api/v1/namespaces/default/pods', { labelSelector: 'app=rec', resourceVersion: rv }, (e) => {
      const o = e.object as unknown as Obj;
      const at = Number(o.metadata.resourceVersion);
      if (e.type === 'DELETED' && o.metadata.labels?.['pod-template-hash'] === oldHash) oldDeleted.push(at);
      if (e.type === 'ADDED' && o.metadata.labels?.['pod-template-hash'] !== oldHash) newAdded.push(at);
    });
    try {
      oldHash = (await cp.getJson<{ items: Obj[] }>('get', 'rs', '-l', 'app=rec')).items[0].metadata.labels!['pod-template-hash'];
      await cp.kubectl('set', 'image', 'deployment/rec', 'c=nginx:1.27');
      await cp.kubectl('rollout', 'status', 'deployment/rec', '--timeout=40s');
    } finally {
      w.stop();
    }
    expect(oldDeleted).toHaveLength(2);
    expect(newAdded).toHaveLength(2);
    expect(Math.max(...oldDeleted)).toBeLessThan(Math.min(...newAdded));
  }, 90_000);

  it('revisionHistoryLimit 1: only the newest old ReplicaSet is kept', async () => {
    expect((await cp.api.kubectl(['apply', '-f', '-'], { stdin: yaml('hist', 'RollingUpdate', 'nginx:1.25', 1) })).code).toBe(0);
    await cp.kubectl('rollout', 'status', 'deployment/hist', '--timeout=30s');
    for (const image of ['nginx:1.26', 'nginx:1.27']) {
      await cp.kubectl('set', 'image', 'deployment/hist', `c=${image}`);
      await cp.kubectl('rollout', 'status', 'deployment/hist', '--timeout=40s');
    }
    // Cleanup runs on the sync after the rollout completes.
    let revisions: string[] = [];
    for (let i = 0; i < 50; i++) {
      const items = (await cp.getJson<{ items: Obj[] }>('get', 'rs', '-l', 'app=hist')).items;
      revisions = items.map((rs) => rs.metadata.annotations!['deployment.kubernetes.io/revision']).sort();
      if (revisions.length === 2) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(revisions).toEqual(['2', '3']);
  }, 120_000);
});
