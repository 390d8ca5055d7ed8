import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { findResource } from '../../../../main/apiserver/registry/index';
import { podRow } from '../../../../main/apiserver/registry/tables/pods';

const NOW = new Date('2026-03-01T12:00:00Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString().replace(/\.\d+Z$/, 'Z');
const MIN = 60_000;

function pod(status: Record<string, unknown>, spec: Record<string, unknown> = {}, meta: Partial<KObject['metadata']> = {}): KObject {
  return { metadata: { name: 'web', creationTimestamp: ago(5 * MIN), ...meta }, spec: { containers: [{ name: 'c' }], ...spec }, status };
}
const running = (ready = true, restarts = 0, extra: Record<string, unknown> = {}) => ({ name: 'c', ready, restartCount: restarts, state: { running: { startedAt: ago(MIN) } }, ...extra });

describe('pod Status column (printPod)', () => {
  it.each([
    ['pending, nothing yet', pod({ phase: 'Pending' }), ['web', '0/1', 'Pending', '0', '5m']],
    ['ContainerCreating', pod({ phase: 'Pending', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] }), ['web', '0/1', 'ContainerCreating', '0', '5m']],
    ['running', pod({ phase: 'Running', containerStatuses: [running()] }), ['web', '1/1', 'Running', '0', '5m']],
    ['Completed', pod({ phase: 'Succeeded', containerStatuses: [{ name: 'c', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }), ['web', '0/1', 'Completed', '0', '5m']],
    ['ExitCode without reason', pod({ phase: 'Failed', containerStatuses: [{ name: 'c', restartCount: 0, state: { terminated: { exitCode: 2 } } }] }), ['web', '0/1', 'ExitCode:2', '0', '5m']],
    ['CrashLoopBackOff with restarts ago', pod({ phase: 'Running', containerStatuses: [{ name: 'c', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: ago(2 * MIN) } } }] }), ['web', '0/1', 'CrashLoopBackOff', '4 (2m ago)', '5m']],
    ['Terminating', pod({ phase: 'Running', containerStatuses: [running()] }, {}, { deletionTimestamp: ago(0) }), ['web', '1/1', 'Terminating', '0', '5m']],
    ['Unknown when node lost', pod({ phase: 'Running', reason: 'NodeLost' }, {}, { deletionTimestamp: ago(0) }), ['web', '0/1', 'Unknown', '0', '5m']],
    ['Init waiting', pod({ phase: 'Pending', initContainerStatuses: [{ name: 'i', restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }] }, { initContainers: [{ name: 'i' }] }), ['web', '0/1', 'Init:0/1', '0', '5m']],
    ['Init error', pod({ phase: 'Pending', initContainerStatuses: [{ name: 'i', restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } }] }, { initContainers: [{ name: 'i' }] }), ['web', '0/1', 'Init:Error', '0', '5m']],
    ['SchedulingGated', pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }), ['web', '0/1', 'SchedulingGated', '0', '5m']],
    ['completed but one running, Ready', pod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [running(), { name: 'd', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }, { containers: [{ name: 'c' }, { name: 'd' }] }), ['web', '1/2', 'Running', '0', '5m']],
  ])('%s', (_n, p, want) => expect(podRow(p, NOW).slice(0, 5)).toEqual(want));

  it('wide cells', () => {
    const p = pod({ phase: 'Running', podIPs: [{ ip: '10.244.0.5' }], conditions: [{ type: 'www.example.com/gate', status: 'True' }] }, { nodeName: 'n1', readinessGates: [{ conditionType: 'www.example.com/gate' }, { conditionType: 'other' }] });
    expect(podRow(p, NOW).slice(5)).toEqual(['10.244.0.5', 'n1', '<none>', '1/2']);
    expect(podRow(pod({ phase: 'Pending' }), NOW).slice(5)).toEqual(['<none>', '<none>', '<none>', '<none>']);
  });

  it('row conditions for finished pods', () => {
    const t = findResource('', 'v1', 'pods')!.table;
    expect(t.conditions!(pod({ phase: 'Succeeded' }))).toEqual([{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
    expect(t.conditions!(pod({ phase: 'Running' }))).toBeUndefined();
  });
});

describe('column definitions', () => {
  const cols = (group: string, resource: string) => findResource(group, 'v1', resource)!.table.columns.map((c) => `${c.name}:${c.type}:${c.priority}`);
  it.each([
    ['', 'pods', ['Name:string:0', 'Ready:string:0', 'Status:string:0', 'Restarts:string:0', 'Age:string:0', 'IP:string:1', 'Node:string:1', 'Nominated Node:string:1', 'Readiness Gates:string:1']],
    ['apps', 'deployments', ['Name:string:0', 'Ready:string:0', 'Up-to-date:string:0', 'Available:string:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1', 'Selector:string:1']],
    ['apps', 'replicasets', ['Name:string:0', 'Desired:integer:0', 'Current:integer:0', 'Ready:integer:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1', 'Selector:string:1']],
    ['', 'services', ['Name:string:0', 'Type:string:0', 'Cluster-IP:string:0', 'External-IP:string:0', 'Port(s):string:0', 'Age:string:0', 'Selector:string:1']],
    ['', 'namespaces', ['Name:string:0', 'Status:string:0', 'Age:string:0']],
    ['', 'configmaps', ['Name:string:0', 'Data:string:0', 'Age:string:0']],
    ['', 'secrets', ['Name:string:0', 'Type:string:0', 'Data:string:0', 'Age:string:0']],
    ['', 'serviceaccounts', ['Name:string:0', 'Secrets:string:0', 'Age:string:0']],
    ['coordination.k8s.io', 'leases', ['Name:string:0', 'Holder:string:0', 'Age:string:0']],
  ])('%s/%s', (g, r, want) => expect(cols(g, r)).toEqual(want));

  it('the Name column has format name', () => {
    expect(findResource('', 'v1', 'pods')!.table.columns[0]).toMatchObject({ name: 'Name', format: 'name' });
  });
});

describe('other rows', () => {
  const row = (group: string, resource: string, obj: KObject) => findResource(group, 'v1', resource)!.table.cells(obj, NOW);
  const meta = { name: 'x', creationTimestamp: ago(3 * 60 * MIN) };
  it('deployment', () => {
    const d = { metadata: meta, spec: { replicas: 3, selector: { matchLabels: { app: 'x' } }, template: { spec: { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'busybox' }] } } }, status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } };
    expect(row('apps', 'deployments', d)).toEqual(['x', '2/3', 3, 2, '3h', 'a,b', 'nginx,busybox', 'app=x']);
  });
  it('services', () => {
    const svc = (spec: Record<string, unknown>, status: Record<string, unknown> = {}) => row('', 'services', { metadata: meta, spec, status });
    expect(svc({ type: 'ClusterIP', clusterIPs: ['10.96.0.1'], ports: [{ port: 443, protocol: 'TCP' }] })).toEqual(['x', 'ClusterIP', '10.96.0.1', '<none>', '443/TCP', '3h', '<none>']);
    expect(svc({ type: 'NodePort', clusterIPs: ['10.96.0.9'], selector: { b: '2', a: '1' }, ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }] })).toEqual([
      'x', 'NodePort', '10.96.0.9', '<none>', '80:30080/TCP,53/UDP', '3h', 'a=1,b=2',
    ]);
    expect(svc({ type: 'LoadBalancer', clusterIPs: ['10.96.0.9'], ports: [] })[3]).toBe('<pending>');
    expect(svc({ type: 'LoadBalancer', clusterIPs: ['10.96.0.9'] }, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } })[3]).toBe('1.2.3.4');
    expect(svc({ type: 'ExternalName', externalName: 'example.com' }).slice(1, 5)).toEqual(['ExternalName', '<none>', 'example.com', '<none>']);
  });
  it('nodes', () => {
    const n = { metadata: { ...meta, labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'worker' } }, spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'False' }], nodeInfo: { kubeletVersion: 'v1.32.0' }, addresses: [{ type: 'InternalIP', address: '192.168.1.2' }] } };
    expect(row('', 'nodes', n)).toEqual(['x', 'NotReady,SchedulingDisabled', 'control-plane,worker', '3h', 'v1.32.0', '192.168.1.2', '<none>', '<unknown>', '<unknown>', '<unknown>']);
    expect(row('', 'nodes', { metadata: meta, status: {} })[1]).toBe('Unknown');
  });
  it('endpoints', () => {
    const ep = { metadata: meta, subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '10.0.0.3' }, { ip: '10.0.0.4' }], ports: [{ port: 80 }] }] };
    expect(row('', 'endpoints', ep)[1]).toBe('10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 1 more...');
    expect(row('', 'endpoints', { metadata: meta })[1]).toBe('<none>');
  });
  it('events, configmaps, secrets, leases, namespaces', () => {
    const ev = { metadata: { ...meta, name: 'web.1' }, type: 'Normal', reason: 'Scheduled', message: ' Successfully assigned default/web to n1 ', involvedObject: { kind: 'Pod', name: 'web' }, source: { component: 'default-scheduler' }, firstTimestamp: ago(10 * MIN), lastTimestamp: ago(2 * MIN), count: 1 };
    expect(row('', 'events', ev)).toEqual(['2m', 'Normal', 'Scheduled', 'pod/web', '', 'default-scheduler', 'Successfully assigned default/web to n1', '10m', 1, 'web.1']);
    expect(row('', 'configmaps', { metadata: meta, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } })).toEqual(['x', 3, '3h']);
    expect(row('', 'secrets', { metadata: meta, type: 'Opaque', data: { a: 'MQ==' } })).toEqual(['x', 'Opaque', 1, '3h']);
    expect(row('coordination.k8s.io', 'leases', { metadata: meta, spec: { holderIdentity: 'n1' } })).toEqual(['x', 'n1', '3h']);
    expect(row('', 'namespaces', { metadata: meta, status: { phase: 'Terminating' } })).toEqual(['x', 'Terminating', '3h']);
  });
});
