import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import type { AuthorizationAttributes } from '../../../../main/apiserver/authz/authorizer';
import { nodeAuthorizer } from '../../../../main/apiserver/nodeauthz/nodeAuthorizer';
import { NodeGraph } from '../../../../main/apiserver/nodeauthz/nodeGraph';
import { nodeRules } from '../../../../main/apiserver/rbac/bootstrap/clusterRoles';

const pod = (name: string, node: string | undefined, spec: Record<string, unknown>): KObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName: node, ...spec } });

const graph = new NodeGraph();
graph.setPod(pod('a', 'node-1', { serviceAccountName: 'app', volumes: [{ name: 'v', secret: { secretName: 's1' } }], containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'cm1' } }] }] }));
graph.setPod(pod('b', undefined, { volumes: [{ name: 'v', secret: { secretName: 's2' } }] }));
const authz = nodeAuthorizer({ graph: async () => graph, nodeRules: nodeRules() });

const node1 = { username: 'system:node:node-1', groups: ['system:nodes', 'system:authenticated'] };
const at = (o: Partial<AuthorizationAttributes>, user = node1): AuthorizationAttributes => ({ user, verb: 'get', isResourceRequest: true, path: '', namespace: 'default', apiGroup: '', apiVersion: 'v1', resource: '', subresource: '', name: '', ...o });

describe('Node authorizer', () => {
  const cases: { name: string; a: AuthorizationAttributes; want: { decision: string; reason?: string } }[] = [
    { name: 'secret of a pod on the node', a: at({ resource: 'secrets', name: 's1' }), want: { decision: 'allow' } },
    { name: 'configmap from envFrom', a: at({ resource: 'configmaps', name: 'cm1' }), want: { decision: 'allow' } },
    { name: 'secret of an unscheduled pod', a: at({ resource: 'secrets', name: 's2' }), want: { decision: 'noOpinion', reason: "no relationship found between node 'node-1' and this object" } },
    { name: 'other node', a: at({ resource: 'secrets', name: 's1' }, { username: 'system:node:node-2', groups: ['system:nodes'] }), want: { decision: 'noOpinion', reason: "no relationship found between node 'node-2' and this object" } },
    { name: 'secret write', a: at({ verb: 'update', resource: 'secrets', name: 's1' }), want: { decision: 'noOpinion', reason: 'can only read resources of this type' } },
    { name: 'token for its pod service account', a: at({ verb: 'create', resource: 'serviceaccounts', subresource: 'token', name: 'app' }), want: { decision: 'allow' } },
    { name: 'own lease', a: at({ verb: 'update', apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', name: 'node-1' }), want: { decision: 'allow' } },
    { name: "another node's lease", a: at({ verb: 'update', apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease', name: 'node-2' }), want: { decision: 'noOpinion', reason: 'can only access node lease with the same name as the requesting node' } },
    { name: 'pod status from the static rules', a: at({ verb: 'patch', resource: 'pods', subresource: 'status', name: 'a' }), want: { decision: 'allow' } },
    { name: 'deployments are not node business', a: at({ verb: 'create', apiGroup: 'apps', resource: 'deployments' }), want: { decision: 'noOpinion' } },
    { name: 'not a node: no opinion', a: at({ resource: 'secrets', name: 's1' }, { username: 'jane', groups: ['system:nodes'] }), want: { decision: 'noOpinion' } },
  ];
  for (const c of cases) it(c.name, async () => expect(await authz.authorize(c.a)).toEqual(c.want));

  it('forgets a pod moved off the node', async () => {
    const g = new NodeGraph();
    g.setPod(pod('a', 'node-1', { volumes: [{ name: 'v', secret: { secretName: 's1' } }] }));
    g.deletePod('default/a');
    expect(g.hasPath('node-1', 'secrets', 'default', 's1')).toBe(false);
  });
});
