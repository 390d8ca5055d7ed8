import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { openApiDocument, openApiHash, openApiIndex, openApiSource } from '../../../../main/apiserver/discovery/openapi';
import type { ResourceDef, Strategy, Verb } from '../../../../main/apiserver/registry/rest/resourceDef';

// Resource definitions as the registry declares them; strategy and table are
// not consulted by the OpenAPI builder.
const strategy: Strategy = {
  defaults: () => {},
  prepareForCreate: () => {},
  prepareForUpdate: () => {},
  validate: () => [],
  validateUpdate: () => [],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
};
const all: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function def(d: Partial<ResourceDef> & Pick<ResourceDef, 'group' | 'version' | 'kind' | 'resource' | 'protoType'>): ResourceDef {
  return {
    listKind: `${d.kind}List`,
    singular: d.kind.toLowerCase(),
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: all,
    storagePrefix: d.resource,
    subresources: [],
    strategy,
    table: { columns: [], cells: () => [] },
    selectableFields: () => ({}),
    ...d,
  };
}

const resources: ResourceDef[] = [
  def({
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    resource: 'deployments',
    protoType: 'k8s.io.api.apps.v1.Deployment',
    subresources: [
      { name: 'status', kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, verbs: ['get', 'patch', 'update'] },
      { name: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
    ],
  }),
  def({ group: 'apps', version: 'v1', kind: 'ReplicaSet', resource: 'replicasets', protoType: 'k8s.io.api.apps.v1.ReplicaSet' }),
  def({
    group: '',
    version: 'v1',
    kind: 'Pod',
    resource: 'pods',
    protoType: 'k8s.io.api.core.v1.Pod',
    subresources: [{ name: 'binding', kind: { group: '', version: 'v1', kind: 'Binding' }, verbs: ['create'] }],
  }),
  def({ group: '', version: 'v1', kind: 'Node', resource: 'nodes', namespaced: false, protoType: 'k8s.io.api.core.v1.Node' }),
  def({ group: '', version: 'v1', kind: 'Secret', resource: 'secrets', protoType: 'k8s.io.api.core.v1.Secret' }),
  def({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', resource: 'leases', protoType: 'k8s.io.api.coordination.v1.Lease' }),
];

type J = Record<string, any>;
const apps = openApiDocument(resources, 'apis/apps/v1') as J;
const core = openApiDocument(resources, 'api/v1') as J;

// kubectl's lookups, re-done by the test the way kubectl does them.

/** cli-runtime query_param_verifier_v3.go: a PATCH for the GVK whose own parameters include the query param. */
function supportsQueryParam(doc: J, gvk: { group: string; version: string; kind: string }, param: string): boolean | 'no path' {
  for (const path of Object.values(doc.paths) as J[]) {
    const op = path.patch;
    if (!op) continue;
    const ext = op['x-kubernetes-group-version-kind'];
    if (ext.group !== gvk.group || ext.version !== gvk.version || ext.kind !== gvk.kind) continue;
    return (op.parameters as J[]).some((p) => p.name === param && p.in === 'query');
  }
  return 'no path';
}

/** kubectl explain v2 (templates/plaintext.tmpl): GVK from the resource's paths, schema by GVK, then follow the field path. */
function explain(doc: J, gvr: { group: string; version: string; resource: string }, fieldPath: string[]): { gvk: J; type?: string; description: string } {
  const prefix = gvr.group ? `/apis/${gvr.group}` : '/api';
  const candidates = [
    `${prefix}/${gvr.version}/${gvr.resource}`,
    `${prefix}/${gvr.version}/${gvr.resource}/{name}`,
    `${prefix}/${gvr.version}/namespaces/{namespace}/${gvr.resource}`,
    `${prefix}/${gvr.version}/namespaces/{namespace}/${gvr.resource}/{name}`,
  ];
  let gvk: J | undefined;
  for (const c of candidates) {
    for (const m of ['get', 'post', 'put', 'patch', 'delete']) gvk ??= doc.paths[c]?.[m]?.['x-kubernetes-group-version-kind'];
  }
  if (!gvk) throw new Error('GVR not found');
  const schema = Object.values(doc.components.schemas as J).find((s: J) =>
    (s['x-kubernetes-group-version-kind'] ?? []).some((g: J) => JSON.stringify(g) === JSON.stringify(gvk)),
  ) as J;
  const resolve = (s: J): J => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s);
  const typeGuess = (s: J): string => {
    if (s.items) return `[]${typeGuess(s.items)}`;
    if (s.additionalProperties) return `map[string]${typeGuess(s.additionalProperties)}`;
    if (s.allOf && s.allOf.length === 1 && !s.properties) return typeGuess(s.allOf[0]);
    if (s.$ref) {
      const r = resolve(s);
      return !r.type || r.type === 'object' ? s.$ref.split('.').pop() : r.type;
    }
    return s.type === 'object' ? 'Object' : (s.type ?? 'Object');
  };
  const describe = (s: J): string => {
    const r = resolve(s);
    return [r.description ?? '', ...(r.allOf ?? []).map(describe)].filter((x) => x).join('\n');
  };
  let current: J = schema;
  let type: string | undefined;
  for (const name of fieldPath) {
    let props = resolve(current).properties;
    if (!props && resolve(current).allOf) props = resolve(resolve(current).allOf[0]).properties;
    const next = props?.[name];
    if (!next) throw new Error(`field "${name}" does not exist`);
    type = typeGuess(next);
    current = next;
  }
  return { gvk, type, description: describe(current) };
}

function allRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => allRefs(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else allRefs(v, out);
    }
  }
  return out;
}

describe('/openapi/v3 index', () => {
  test('one entry per served group-version, hashed by the document', () => {
    const index = openApiIndex(resources);
    expect(Object.keys(index.paths)).toEqual(['api/v1', 'apis/apps/v1', 'apis/coordination.k8s.io/v1']);
    const hash = createHash('sha512').update(JSON.stringify(apps)).digest('hex').toUpperCase();
    expect(index.paths['apis/apps/v1']).toEqual({ serverRelativeURL: `/openapi/v3/apis/apps/v1?hash=${hash}` });
    expect(openApiHash(apps)).toBe(hash);
    expect(hash).toMatch(/^[0-9A-F]{128}$/);
  });

  test('unknown group-versions have no document; every spelling of a served one does', () => {
    expect(openApiDocument(resources, 'apis/batch/v1')).toBeUndefined();
    expect(openApiDocument(resources, 'apps/v1')).toEqual(apps);
    expect(openApiDocument(resources, 'v1')).toEqual(core);
  });

  test('openApiSource caches per resource list and rebuilds when the list changes', () => {
    let list = resources;
    const source = openApiSource(() => list);
    const first = source.document('apis/apps/v1');
    expect(source.document('apis/apps/v1')).toBe(first);
    list = resources.filter((r) => r.resource !== 'replicasets');
    expect(source.document('apis/apps/v1')).not.toBe(first);
    expect(Object.keys((source.document('apis/apps/v1') as J).paths).some((p) => p.includes('replicasets'))).toBe(false);
    expect(Object.keys(source.index().paths as object)).toHaveLength(3);
  });
});

describe('per group-version documents', () => {
  test('resource paths with kube\'s operations, actions and GVKs', () => {
    const item = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
    expect(Object.keys(item).sort()).toEqual(['delete', 'get', 'parameters', 'patch', 'put']);
    expect(item.get.operationId).toBe('readAppsV1NamespacedDeployment');
    for (const [method, action] of [['get', 'get'], ['put', 'put'], ['patch', 'patch'], ['delete', 'delete']]) {
      expect(item[method]['x-kubernetes-action']).toBe(action);
      expect(item[method]['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', kind: 'Deployment', version: 'v1' });
    }
    expect(item.parameters.map((p: J) => `${p.in}:${p.name}`)).toEqual(['path:name', 'path:namespace', 'query:pretty']);
    const coll = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments'];
    expect([coll.get['x-kubernetes-action'], coll.post['x-kubernetes-action'], coll.delete['x-kubernetes-action']]).toEqual(['list', 'post', 'deletecollection']);
    expect(apps.paths['/apis/apps/v1/deployments'].get.operationId).toBe('listAppsV1DeploymentForAllNamespaces');
    expect(core.paths['/api/v1/nodes/{name}'].get.operationId).toBe('readCoreV1Node');
    expect(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/binding'].post['x-kubernetes-group-version-kind']).toEqual({ group: '', kind: 'Binding', version: 'v1' });
  });

  test('PATCH takes the four patch media types and the write query parameters', () => {
    const patch = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    expect(Object.keys(patch.requestBody.content)).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    expect(patch.parameters.map((p: J) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    expect(apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments'].post.parameters.map((p: J) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation']);
  });

  test('kubectl sees server-side field validation for every served kind (so it sends fieldValidation=Strict)', () => {
    expect(supportsQueryParam(apps, { group: 'apps', version: 'v1', kind: 'Deployment' }, 'fieldValidation')).toBe(true);
    expect(supportsQueryParam(apps, { group: 'autoscaling', version: 'v1', kind: 'Scale' }, 'fieldValidation')).toBe(true);
    expect(supportsQueryParam(core, { group: '', version: 'v1', kind: 'Node' }, 'fieldValidation')).toBe(true);
    expect(supportsQueryParam(core, { group: '', version: 'v1', kind: 'Pod' }, 'nonsense')).toBe(false);
  });

  test('the scale subresource names autoscaling/v1 Scale and its schema is in the apps document', () => {
    const scale = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'];
    expect(scale.put['x-kubernetes-group-version-kind']).toEqual({ group: 'autoscaling', kind: 'Scale', version: 'v1' });
    expect(apps.components.schemas['io.k8s.api.autoscaling.v1.Scale']['x-kubernetes-group-version-kind']).toEqual([{ group: 'autoscaling', kind: 'Scale', version: 'v1' }]);
  });

  test('every $ref resolves inside the document', () => {
    for (const doc of [apps, core]) {
      const missing = allRefs(doc).filter((r) => !doc.components.schemas[r.replace('#/components/schemas/', '')]);
      expect(missing).toEqual([]);
    }
  });
});

describe('component schemas', () => {
  const s = apps.components.schemas;
  test('kinds carry apiVersion/kind and x-kubernetes-group-version-kind; fields refer through allOf', () => {
    const d = s['io.k8s.api.apps.v1.Deployment'];
    expect(d['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    expect(Object.keys(d.properties)).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect(d.properties.spec.allOf).toEqual([{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' }]);
    expect(d.properties.metadata.allOf).toEqual([{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
    expect(s['io.k8s.api.apps.v1.DeploymentList']['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', kind: 'DeploymentList', version: 'v1' }]);
    expect(s['io.k8s.api.apps.v1.DeploymentSpec']['x-kubernetes-group-version-kind']).toBeUndefined();
  });

  test('types and formats as upstream', () => {
    const spec = s['io.k8s.api.apps.v1.DeploymentSpec'];
    expect(spec.properties.replicas).toMatchObject({ type: 'integer', format: 'int32' });
    expect(spec.required).toEqual(['selector', 'template']);
    expect(s['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.generation).toMatchObject({ type: 'integer', format: 'int64' });
    expect(s['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.labels).toMatchObject({ type: 'object', additionalProperties: { type: 'string' } });
    expect(s['io.k8s.apimachinery.pkg.apis.meta.v1.Time']).toMatchObject({ type: 'string', format: 'date-time' });
    expect(s['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toMatchObject({ type: 'string', format: 'int-or-string' });
    expect(s['io.k8s.apimachinery.pkg.api.resource.Quantity']).toMatchObject({ type: 'string' });
    expect(s['io.k8s.api.core.v1.Container'].required).toEqual(['name']);
    expect(s['io.k8s.api.core.v1.ResourceRequirements'].properties.limits).toMatchObject({
      type: 'object',
      additionalProperties: { allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity' }] },
    });
    expect(core.components.schemas['io.k8s.api.core.v1.Secret'].properties.data.additionalProperties).toEqual({ type: 'string', format: 'byte' });
  });

  test('inline structs are flattened: Volume shows its sources, Probe its handlers', () => {
    expect(Object.keys(s['io.k8s.api.core.v1.Volume'].properties)).toEqual(expect.arrayContaining(['name', 'emptyDir', 'configMap', 'secret', 'hostPath']));
    expect(s['io.k8s.api.core.v1.Volume'].properties.volumeSource).toBeUndefined();
    expect(Object.keys(s['io.k8s.api.core.v1.Probe'].properties)).toEqual(expect.arrayContaining(['httpGet', 'exec', 'tcpSocket', 'periodSeconds']));
    expect(Object.keys(s['io.k8s.api.core.v1.ConfigMapVolumeSource'].properties)).toEqual(['defaultMode', 'items', 'name', 'optional']);
  });

  test('patch and list markers from the strategic-merge table', () => {
    const podSpec = s['io.k8s.api.core.v1.PodSpec'].properties;
    expect(podSpec.containers).toMatchObject({
      type: 'array',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    });
    expect(podSpec.volumes['x-kubernetes-patch-strategy']).toBe('merge,retainKeys');
    expect(s['io.k8s.api.core.v1.Container'].properties.ports['x-kubernetes-list-map-keys']).toEqual(['containerPort', 'protocol']);
    expect(s['io.k8s.api.apps.v1.DeploymentSpec'].properties.strategy['x-kubernetes-patch-strategy']).toBe('retainKeys');
  });
});

describe('kubectl explain, following kubectl\'s template', () => {
  test('explain deployment', () => {
    const got = explain(apps, { group: 'apps', version: 'v1', resource: 'deployments' }, []);
    expect(got.gvk).toEqual({ group: 'apps', kind: 'Deployment', version: 'v1' });
    expect(got.description).toContain('Deployment declares the desired state');
  });

  test('explain deployment.spec', () => {
    const got = explain(apps, { group: 'apps', version: 'v1', resource: 'deployments' }, ['spec']);
    expect(got.type).toBe('DeploymentSpec');
    expect(got.description).toContain('desired behaviour');
  });

  test('explain deployment.spec.replicas and deeper', () => {
    const replicas = explain(apps, { group: 'apps', version: 'v1', resource: 'deployments' }, ['spec', 'replicas']);
    expect(replicas.type).toBe('integer');
    expect(replicas.description).toContain('Number of desired pods');
    expect(explain(apps, { group: 'apps', version: 'v1', resource: 'deployments' }, ['spec', 'template', 'spec', 'containers']).type).toBe('[]Container');
    expect(explain(apps, { group: 'apps', version: 'v1', resource: 'deployments' }, ['metadata', 'creationTimestamp']).type).toBe('string');
    expect(explain(core, { group: '', version: 'v1', resource: 'nodes' }, ['status', 'capacity']).type).toBe('map[string]string');
  });
});
