// NodeRestriction (on by default, as kubeadm sets it) through kubectl 1.32,
// acting as a kubelet by impersonation (`--as system:node:n1 --as-group
// system:nodes`, or the same headers on a raw PATCH, which is what a kubelet
// sends for pod status — kubectl's patch would GET pods/status first, which
// the Node authorizer does not allow): a node may register and modify only its own Node (not its
// taints, not restricted labels), write only its own Lease, update status and
// delete only pods bound to itself, and create only mirror pods. Each refusal
// is kube's 403 message. Ports 30760–30766.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, reapApiServers, startTestApiServer, type TestApiServer } from '../../support/apiserver';

const PORT_BASE = 30760;
let api: TestApiServer;

const AS_N1 = ['--as', 'system:node:n1', '--as-group', 'system:nodes'];

async function ok(args: string[], stdin?: string): Promise<string> {
  const r = await api.kubectl(args, { stdin });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} → ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/** kubectl as node n1; the stderr of a refusal. */
async function refusedAsN1(args: string[], stdin?: string): Promise<string> {
  const r = await api.kubectl([...args, ...AS_N1], { stdin });
  expect(r.code, `${args.join(' ')} should be refused; stdout: ${r.stdout}`).not.toBe(0);
  return r.stderr.trim();
}

const node = (name: string, labels: Record<string, string> = {}) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', ...labels } } });
const pod = (name: string, nodeName: string, annotations: Record<string, string> = {}) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations }, spec: { nodeName, containers: [{ name: 'c', image: 'nginx:1.27' }] } });
/** A merge patch of a pod's status as node n1 (a kubelet's request): status code and Status message. */
async function patchStatusAsN1(name: string, patch: unknown): Promise<{ status: number; message: string }> {
  const r = await apiRequest(api.layout, 'PATCH', `/api/v1/namespaces/default/pods/${name}/status`, JSON.stringify(patch), {
    'Content-Type': 'application/merge-patch+json',
    'Impersonate-User': 'system:node:n1',
    'Impersonate-Group': 'system:nodes',
  });
  return { status: r.status, message: String(r.json().message ?? '') };
}

const lease = (name: string) => JSON.stringify({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'kube-node-lease' }, spec: { holderIdentity: name } });

beforeAll(async () => {
  api = await startTestApiServer(PORT_BASE);
}, 180_000);

afterAll(async () => {
  await reapApiServers();
});

describe('NodeRestriction', () => {
  it('a node registers and relabels only itself; not its taints, not restricted labels', async () => {
    expect(await ok(['create', '-f', '-', ...AS_N1], node('n1', { 'node.kubernetes.io/instance-type': 'sim' }))).toBe('node/n1 created\n');
    expect(await refusedAsN1(['create', '-f', '-'], node('n2'))).toBe('Error from server (Forbidden): error when creating "STDIN": nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
    expect(await refusedAsN1(['create', '-f', '-'], node('n1', { 'node-restriction.kubernetes.io/pool': 'gold' }))).toContain(
      'nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: node-restriction.kubernetes.io/pool',
    );
    // Its own kubelet labels are fine; others under kubernetes.io are not.
    expect(await ok(['label', 'node', 'n1', 'kubelet.kubernetes.io/role=sim', ...AS_N1])).toBe('node/n1 labeled\n');
    expect(await refusedAsN1(['label', 'node', 'n1', 'node-role.kubernetes.io/control-plane='])).toBe(
      'Error from server (Forbidden): nodes "n1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/control-plane',
    );
    expect(await refusedAsN1(['taint', 'node', 'n1', 'dedicated=gpu:NoSchedule'])).toBe('Error from server (Forbidden): nodes "n1" is forbidden: node "n1" is not allowed to modify taints');
    // The admin may do all of that.
    await ok(['create', '-f', '-'], node('n2'));
    expect(await ok(['taint', 'node', 'n1', 'dedicated=gpu:NoSchedule'])).toBe('node/n1 tainted\n');
  }, 120_000);

  it('a node writes only its own Lease in kube-node-lease', async () => {
    expect(await ok(['create', '-f', '-', ...AS_N1], lease('n1'))).toBe('lease.coordination.k8s.io/n1 created\n');
    expect(await refusedAsN1(['create', '-f', '-'], lease('n2'))).toBe(
      'Error from server (Forbidden): error when creating "STDIN": leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node',
    );
  }, 60_000);

  it('pods: status and delete only for pods bound to the node; creates only of mirror pods', async () => {
    await ok(['create', '-f', '-'], pod('on-n1', 'n1'));
    await ok(['create', '-f', '-'], pod('on-n2', 'n2'));
    expect(await patchStatusAsN1('on-n1', { status: { message: 'seen by n1' } })).toEqual({ status: 200, message: '' });
    expect(await ok(['get', 'pod', 'on-n1', '-o', 'jsonpath={.status.message}'])).toBe('seen by n1');
    expect(await patchStatusAsN1('on-n2', { status: { message: 'seen by n1' } })).toEqual({
      status: 403,
      message: 'pods "on-n2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself',
    });
    expect(await patchStatusAsN1('on-n1', { metadata: { labels: { stolen: 'yes' } } })).toEqual({
      status: 403,
      message: 'pods "on-n1" is forbidden: node "n1" cannot update labels through pod status',
    });
    expect(await refusedAsN1(['create', '-f', '-'], pod('made-by-n1', 'n1'))).toBe(
      'Error from server (Forbidden): error when creating "STDIN": pods "made-by-n1" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods',
    );
    expect(await refusedAsN1(['create', '-f', '-'], pod('mirror-elsewhere', 'n2', { 'kubernetes.io/config.mirror': 'x' }))).toContain(
      'node "n1" can only create pods with spec.nodeName set to itself',
    );
    expect(await refusedAsN1(['delete', 'pod', 'on-n2', '--wait=false'])).toBe(
      'Error from server (Forbidden): pods "Unknown" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself',
    );
    expect(await ok(['delete', 'pod', 'on-n1', '--grace-period=0', '--wait=false', ...AS_N1])).toContain('pod "on-n1" deleted');
    expect(await ok(['get', 'pod', 'on-n2', '-o', 'name'])).toBe('pod/on-n2\n');
  }, 120_000);

  it('a mirror pod owned by the node\'s own Node is admitted', async () => {
    const uid = (await ok(['get', 'node', 'n1', '-o', 'jsonpath={.metadata.uid}'])).trim();
    const mirror = JSON.parse(pod('static-web-n1', 'n1', { 'kubernetes.io/config.mirror': 'hash' }));
    mirror.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid, controller: true }];
    expect(await ok(['create', '-f', '-', ...AS_N1], JSON.stringify(mirror))).toBe('pod/static-web-n1 created\n');
    mirror.metadata.name = 'static-web-bad-uid';
    mirror.metadata.ownerReferences[0].uid = '00000000-0000-0000-0000-000000000000';
    expect(await refusedAsN1(['create', '-f', '-'], JSON.stringify(mirror))).toContain(`node n1 UID mismatch: expected 00000000-0000-0000-0000-000000000000 got ${uid}`);
  }, 60_000);
});
