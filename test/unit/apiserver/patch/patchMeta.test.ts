// The merge-key table against the Go struct tags and list markers of
// k8s.io/api v0.32, and the OpenAPI extensions derived from it.

import { describe, expect, it } from 'vitest';
import { fieldMeta, fieldMetaAtPath, knownMessages, messageFields, messageForKind, openApiExtensions } from '../../../../main/apiserver/patch/patchMeta';

const CORE = 'k8s.io.api.core.v1.';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1.';

describe('patchMeta', () => {
  const cases: { message: string; field: string; want: object }[] = [
    { message: CORE + 'PodSpec', field: 'containers', want: { kind: 'list', type: CORE + 'Container', patchStrategy: 'merge', patchMergeKey: 'name', listType: 'map', listMapKeys: ['name'] } },
    { message: CORE + 'PodSpec', field: 'volumes', want: { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name', listMapKeys: ['name'] } },
    { message: CORE + 'PodSpec', field: 'tolerations', want: { kind: 'list', listType: 'atomic' } },
    { message: CORE + 'PodSpec', field: 'imagePullSecrets', want: { patchStrategy: 'merge', patchMergeKey: 'name' } },
    { message: CORE + 'Container', field: 'ports', want: { patchMergeKey: 'containerPort', listMapKeys: ['containerPort', 'protocol'] } },
    { message: CORE + 'Container', field: 'volumeMounts', want: { patchMergeKey: 'mountPath' } },
    { message: CORE + 'Container', field: 'env', want: { patchMergeKey: 'name' } },
    { message: CORE + 'ServiceSpec', field: 'ports', want: { patchMergeKey: 'port', listMapKeys: ['port', 'protocol'] } },
    { message: CORE + 'PodStatus', field: 'conditions', want: { patchMergeKey: 'type', listType: 'map' } },
    { message: META + 'ObjectMeta', field: 'ownerReferences', want: { patchMergeKey: 'uid', listMapKeys: ['uid'] } },
    { message: META + 'ObjectMeta', field: 'finalizers', want: { kind: 'list', patchStrategy: 'merge', listType: 'set' } },
    { message: 'k8s.io.api.apps.v1.DeploymentSpec', field: 'selector', want: { kind: 'struct', atomic: true } },
    { message: 'k8s.io.api.apps.v1.DeploymentSpec', field: 'strategy', want: { patchStrategy: 'retainKeys', value: true } },
  ];
  for (const c of cases) {
    it(`${c.message.split('.').pop()}.${c.field}`, () => {
      expect(fieldMeta(c.message, c.field)).toMatchObject(c.want);
    });
  }

  it('scalars and unknown fields have no metadata', () => {
    expect(fieldMeta(CORE + 'Container', 'image')).toBeUndefined();
    expect(fieldMeta('nope', 'x')).toBeUndefined();
    expect(fieldMeta(undefined, 'x')).toBeUndefined();
  });

  it('every referenced message type with fields is in the table, and every merge list has a key', () => {
    const known = new Set(knownMessages());
    for (const m of knownMessages()) {
      for (const [f, meta] of Object.entries(messageFields(m)!)) {
        if (meta.patchStrategy?.startsWith('merge') && meta.type) expect(meta.patchMergeKey, `${m}.${f}`).toBeTruthy();
        if (meta.listType === 'map') expect(meta.listMapKeys?.length, `${m}.${f}`).toBeGreaterThan(0);
        if (meta.type === CORE + 'Container') expect(known.has(meta.type)).toBe(true);
      }
    }
  });

  it('kinds map to their messages', () => {
    expect(messageForKind('apps/v1', 'Deployment')).toBe('k8s.io.api.apps.v1.Deployment');
    expect(messageForKind('v1', 'Pod')).toBe(CORE + 'Pod');
    expect(messageForKind('v1', 'Nope')).toBeUndefined();
  });

  it('OpenAPI extensions', () => {
    expect(openApiExtensions(CORE + 'Container', 'ports')).toEqual({
      'x-kubernetes-patch-strategy': 'merge',
      'x-kubernetes-patch-merge-key': 'containerPort',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
    });
    expect(openApiExtensions(CORE + 'PodSpec', 'nodeSelector')).toEqual({ 'x-kubernetes-map-type': 'atomic' });
    expect(openApiExtensions(CORE + 'Container', 'image')).toEqual({});
  });
});

describe('fieldMetaAtPath', () => {
  const D = 'k8s.io.api.apps.v1.Deployment';
  const cases: { path: (string | number)[]; want: object | undefined }[] = [
    { path: ['spec', 'template', 'spec', 'containers'], want: { patchMergeKey: 'name' } },
    { path: ['spec', 'template', 'spec', 'containers', 0, 'ports'], want: { patchMergeKey: 'containerPort' } },
    { path: ['spec', 'template', 'spec', 'containers', 'nginx', 'env'], want: { patchMergeKey: 'name' } },
    { path: ['metadata', 'finalizers'], want: { listType: 'set' } },
    { path: ['spec', 'replicas'], want: undefined },
    { path: ['spec', 'nope', 'x'], want: undefined },
  ];
  for (const c of cases) {
    it(c.path.join('.'), () => {
      const got = fieldMetaAtPath(D, c.path);
      if (c.want === undefined) expect(got).toBeUndefined();
      else expect(got).toMatchObject(c.want);
    });
  }
  it('kinds outside the table come from the schema', () => {
    expect(messageForKind('v1', 'Binding')).toBe('k8s.io.api.core.v1.Binding');
    expect(messageForKind('v1', 'NoSuchKind')).toBeUndefined();
  });
});
