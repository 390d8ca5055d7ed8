// Strategic merge patch against live objects, with the patches kubectl 1.32
// actually sends (3-way apply, edit, patch) and the cases of kube's
// strategicpatch/patch_test.go; error cases check kube's Status.

import { describe, expect, it } from 'vitest';
import { StatusError } from '../../../../main/apiserver/api/status';
import { messageForKind } from '../../../../main/apiserver/patch/patchMeta';
import { strategicMergePatch } from '../../../../main/apiserver/patch/strategicMerge';

const DEPLOY = messageForKind('apps/v1', 'Deployment');
const POD = messageForKind('v1', 'Pod');
const SVC = messageForKind('v1', 'Service');

const deployment = (containers: unknown[] = [nginx(), sidecar()], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web', tier: 'front' }, finalizers: ['a', 'b'] },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers, tolerations: [{ key: 'k', operator: 'Exists' }], ...extra } },
  },
});
const nginx = (over: Record<string, unknown> = {}) => ({
  name: 'nginx',
  image: 'nginx:1.25',
  ports: [{ containerPort: 80, protocol: 'TCP' }],
  env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }],
  ...over,
});
const sidecar = () => ({ name: 'sidecar', image: 'busybox' });
const tpl = (spec: Record<string, unknown>) => ({ spec: { template: { spec } } });

interface Case {
  name: string;
  live: Record<string, unknown>;
  patch: unknown;
  message?: string;
  want: unknown;
}

const cases: Case[] = [
  {
    name: 'kubectl apply: change one image',
    live: deployment(),
    patch: tpl({ '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }], containers: [{ image: 'nginx:1.26', name: 'nginx' }] }),
    want: deployment([nginx({ image: 'nginx:1.26' }), sidecar()]),
  },
  {
    name: 'kubectl apply: add a container',
    live: deployment(),
    patch: tpl({ '$setElementOrder/containers': [{ name: 'nginx' }, { name: 'sidecar' }, { name: 'redis' }], containers: [{ image: 'redis', name: 'redis' }] }),
    want: deployment([nginx(), sidecar(), { image: 'redis', name: 'redis' }]),
  },
  {
    name: 'kubectl apply: remove a container with $patch: delete',
    live: deployment(),
    patch: tpl({ '$setElementOrder/containers': [{ name: 'nginx' }], containers: [{ $patch: 'delete', name: 'sidecar' }] }),
    want: deployment([nginx()]),
  },
  {
    name: 'kubectl apply: reorder containers with $setElementOrder only',
    live: deployment(),
    patch: tpl({ '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'nginx' }] }),
    want: deployment([sidecar(), nginx()]),
  },
  {
    name: 'kubectl apply: remove a label',
    live: deployment(),
    patch: { metadata: { labels: { tier: null } } },
    want: (() => {
      const d = deployment();
      d.metadata.labels = { app: 'web' } as any;
      return d;
    })(),
  },
  { name: 'empty patch is a no-op', live: deployment(), patch: {}, want: deployment() },
  {
    name: 'metadata.labels: null removes the map',
    live: deployment(),
    patch: { metadata: { labels: null } },
    want: (() => {
      const d = deployment() as any;
      delete d.metadata.labels;
      return d;
    })(),
  },
  {
    name: 'merge list without $setElementOrder puts new patch items first',
    live: deployment(),
    patch: tpl({ containers: [{ name: 'nginx', ports: [{ containerPort: 443 }] }] }),
    want: deployment([nginx({ ports: [{ containerPort: 443 }, { containerPort: 80, protocol: 'TCP' }] }), sidecar()]),
  },
  {
    name: 'env merges by name; null inside an element deletes the field',
    live: deployment(),
    patch: tpl({ containers: [{ name: 'nginx', env: [{ name: 'B', value: null }, { name: 'C', value: 'x' }] }] }),
    // A was before B in the live list, so it stays first; C follows B as in the patch.
    want: deployment([nginx({ env: [{ name: 'A', value: '1' }, { name: 'B' }, { name: 'C', value: 'x' }] }), sidecar()]),
  },
  {
    name: 'atomic list (tolerations) is replaced',
    live: deployment(),
    patch: tpl({ tolerations: [{ key: 'other', operator: 'Equal', value: 'v' }] }),
    want: (() => {
      const d = deployment() as any;
      d.spec.template.spec.tolerations = [{ key: 'other', operator: 'Equal', value: 'v' }];
      return d;
    })(),
  },
  {
    name: 'finalizers merge as a set',
    live: deployment(),
    patch: { metadata: { finalizers: ['b', 'c'] } },
    want: (() => {
      const d = deployment();
      d.metadata.finalizers = ['a', 'b', 'c'];
      return d;
    })(),
  },
  {
    name: '$deleteFromPrimitiveList removes finalizers',
    live: deployment(),
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
    want: (() => {
      const d = deployment();
      d.metadata.finalizers = ['b'];
      return d;
    })(),
  },
  {
    name: '$setElementOrder on a primitive list',
    live: deployment(),
    patch: { metadata: { '$setElementOrder/finalizers': ['b', 'c', 'a'], finalizers: ['c'] } },
    want: (() => {
      const d = deployment();
      d.metadata.finalizers = ['b', 'c', 'a'];
      return d;
    })(),
  },
  {
    name: '$retainKeys clears the other strategy fields (kubectl: RollingUpdate → Recreate)',
    live: deployment(),
    patch: { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } } },
    want: (() => {
      const d = deployment() as any;
      d.spec.strategy = { type: 'Recreate' };
      return d;
    })(),
  },
  {
    name: 'kubectl apply: a volume switches source ($retainKeys inside a merge-list element)',
    live: deployment([nginx(), sidecar()], { volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', secret: { secretName: 's' } }] }),
    patch: tpl({
      '$setElementOrder/volumes': [{ name: 'v' }, { name: 'w' }],
      volumes: [{ $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' }, name: 'v' }],
    }),
    want: deployment([nginx(), sidecar()], { volumes: [{ name: 'v', configMap: { name: 'cm' } }, { name: 'w', secret: { secretName: 's' } }] }),
  },
  {
    name: '$patch: replace on a map',
    live: deployment(),
    patch: { metadata: { labels: { $patch: 'replace', only: 'me' } } },
    want: (() => {
      const d = deployment() as any;
      d.metadata.labels = { only: 'me' };
      return d;
    })(),
  },
  {
    name: '$patch: delete on a map empties it',
    live: deployment(),
    patch: { spec: { strategy: { $patch: 'delete' } } },
    want: (() => {
      const d = deployment() as any;
      d.spec.strategy = {};
      return d;
    })(),
  },
  {
    name: '$patch: replace as a list element replaces the list',
    live: deployment(),
    patch: tpl({ containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] }),
    want: deployment([{ name: 'only', image: 'x' }]),
  },
  {
    name: 'new fields from the patch lose nulls and $patch maps',
    live: deployment(),
    patch: tpl({ nodeSelector: { disk: 'ssd', gone: null }, volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', $patch: 'delete' }] }),
    want: deployment([nginx(), sidecar()], { nodeSelector: { disk: 'ssd' }, volumes: [{ name: 'v', emptyDir: {} }] }),
  },
  {
    name: 'a list element value of another type replaces',
    live: deployment(),
    patch: { spec: { replicas: '3' } },
    want: (() => {
      const d = deployment() as any;
      d.spec.replicas = '3';
      return d;
    })(),
  },
  {
    name: 'pod: conditions merge by type',
    message: POD,
    live: { metadata: { name: 'p' }, status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'PodScheduled', status: 'True' }] } },
    patch: { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
    want: { metadata: { name: 'p' }, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'PodScheduled', status: 'True' }] } },
  },
  {
    name: 'pod: ownerReferences merge by uid',
    message: POD,
    live: { metadata: { name: 'p', ownerReferences: [{ uid: '1', name: 'rs1', kind: 'ReplicaSet' }] } },
    patch: { metadata: { ownerReferences: [{ uid: '2', name: 'rs2', kind: 'ReplicaSet' }] } },
    want: {
      metadata: {
        name: 'p',
        ownerReferences: [
          { uid: '2', name: 'rs2', kind: 'ReplicaSet' },
          { uid: '1', name: 'rs1', kind: 'ReplicaSet' },
        ],
      },
    },
  },
  {
    name: 'service: ports merge by port',
    message: SVC,
    live: { metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] } },
    patch: { spec: { '$setElementOrder/ports': [{ port: 80 }, { port: 443 }], ports: [{ port: 80, targetPort: 9090 }, { port: 443, targetPort: 8443 }] } },
    want: {
      metadata: { name: 's' },
      spec: {
        ports: [
          { port: 80, targetPort: 9090, protocol: 'TCP' },
          { port: 443, targetPort: 8443 },
        ],
      },
    },
  },
  {
    name: 'unknown kind: maps merge, lists replace',
    message: undefined,
    live: { metadata: { name: 'x' }, spec: { a: { b: 1, c: 2 }, list: [1, 2] } },
    patch: { spec: { a: { c: null, d: 3 }, list: [3] } },
    want: { metadata: { name: 'x' }, spec: { a: { b: 1, d: 3 }, list: [3] } },
  },
];

describe('strategicMergePatch', () => {
  for (const c of cases) {
    it(c.name, () => {
      const before = JSON.parse(JSON.stringify(c.live));
      const out = strategicMergePatch(c.live, JSON.stringify(c.patch), 'message' in c ? c.message : DEPLOY);
      expect(out).toEqual(c.want);
      expect(c.live).toEqual(before);
    });
  }
});

describe('strategicMergePatch errors', () => {
  const errors: { name: string; patch: string; code: number; reason: string; message: string }[] = [
    { name: 'element without its merge key → 500', patch: JSON.stringify(tpl({ containers: [{ image: 'x' }] })), code: 500, reason: '', message: 'map: map[image:x] does not contain declared merge key: name' },
    { name: 'unknown $patch in a map → 500', patch: '{"metadata":{"labels":{"$patch":"foo"}}}', code: 500, reason: '', message: 'unknown patch type: foo in map: map[$patch:foo]' },
    { name: '$patch: merge in a list → 500', patch: JSON.stringify(tpl({ containers: [{ $patch: 'merge', name: 'x' }] })), code: 500, reason: '', message: 'merging lists cannot yet be specified in the patch' },
    { name: '$retainKeys not a list → 400', patch: '{"spec":{"strategy":{"$retainKeys":"type"}}}', code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' },
    { name: 'patch key outside $retainKeys → 400', patch: '{"spec":{"strategy":{"$retainKeys":["type"],"rollingUpdate":{}}}}', code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' },
    { name: '$deleteFromPrimitiveList without a field → 400', patch: '{"metadata":{"$deleteFromPrimitiveList":["a"]}}', code: 400, reason: 'BadRequest', message: 'invalid patch format of primitive list' },
    { name: 'mixed element types in a merge list → 500', patch: '{"metadata":{"finalizers":[["x"]]}}', code: 500, reason: '', message: 'list element types are not identical: [[a b] [[x]]]' },
    { name: 'body is an array → 400', patch: '[]', code: 400, reason: 'BadRequest', message: 'json: cannot unmarshal array into Go value of type map[string]interface {}' },
    { name: 'body is not JSON → 400', patch: 'x', code: 400, reason: 'BadRequest', message: "invalid character 'x' looking for beginning of value" },
  ];
  for (const c of errors) {
    it(c.name, () => {
      let err: unknown;
      try {
        strategicMergePatch(deployment(), c.patch, DEPLOY);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StatusError);
      expect((err as StatusError).status).toMatchObject({ code: c.code, reason: c.reason, message: c.message });
    });
  }

  it('lists of lists on an empty merge list → 422 with the generic text', () => {
    const live = deployment();
    (live.metadata as any).finalizers = [];
    expect(() => strategicMergePatch(live, '{"metadata":{"finalizers":[["x"]]}}', DEPLOY)).toThrowError(
      expect.objectContaining({ status: expect.objectContaining({ code: 422, message: 'the server rejected our request due to an error in our request' }) }),
    );
  });
});
