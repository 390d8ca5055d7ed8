// The schema-aware walks behind managedFields and server-side apply.

import { describe, expect, it } from 'vitest';
import { compareValues, fieldsOf, mergeValues, normalizeTyped, removeItems, rootType } from '../../../../main/apiserver/patch/typedValue';
import { FieldSet } from '../../../../main/apiserver/patch/fieldSet';

const POD_SPEC = { kind: 'struct' as const, message: 'k8s.io.api.core.v1.PodSpec' };
const names = (v: any) => v.containers.map((c: any) => c.name);
const c = (name: string, image = name) => ({ name, image });

describe('mergeValues: associative list order (SMD visitListItems)', () => {
  const cases: { name: string; live: string[]; config: string[]; want: string[] }[] = [
    { name: 'append new items', live: ['a', 'b'], config: ['a', 'b', 'c'], want: ['a', 'b', 'c'] },
    { name: 'config order wins for shared items', live: ['a', 'b'], config: ['b', 'a'], want: ['b', 'a'] },
    { name: 'live-only items keep their place', live: ['a', 'x', 'b'], config: ['b', 'a'], want: ['x', 'b', 'a'] },
    { name: 'new items go where the config puts them', live: ['a', 'b'], config: ['c', 'b', 'a'], want: ['c', 'b', 'a'] },
    { name: 'live-only after shared', live: ['a', 'b', 'y'], config: ['a', 'n'], want: ['a', 'b', 'y', 'n'] },
  ];
  for (const k of cases) {
    it(k.name, () => {
      const out = mergeValues({ containers: k.live.map((n) => c(n)) }, { containers: k.config.map((n) => c(n)) }, POD_SPEC);
      expect(names(out)).toEqual(k.want);
    });
  }

  it('shared items merge field by field; atomic lists are replaced', () => {
    const out = mergeValues(
      { containers: [{ name: 'a', image: 'x', command: ['sh'], env: [{ name: 'E', value: '1' }] }], tolerations: [{ key: 'k' }] },
      { containers: [{ name: 'a', command: ['bash'], env: [{ name: 'F', value: '2' }] }], tolerations: [{ key: 'z' }] },
      POD_SPEC,
    );
    expect(out).toEqual({
      containers: [{ name: 'a', image: 'x', command: ['bash'], env: [{ name: 'E', value: '1' }, { name: 'F', value: '2' }] }],
      tolerations: [{ key: 'z' }],
    });
  });
});

describe('compareValues', () => {
  it('a new map is added as a node with its entries; a changed leaf is modified; a dropped one removed', () => {
    const r = compareValues({ metadata: {}, spec: { replicas: 1, paused: true } }, { metadata: { labels: { a: '1' } }, spec: { replicas: 2 } }, rootType('k8s.io.api.apps.v1.Deployment'));
    expect(r.added.paths()).toEqual([['f:metadata', 'f:labels'], ['f:metadata', 'f:labels', 'f:a']]);
    expect(r.modified.paths()).toEqual([['f:spec', 'f:replicas']]);
    expect(r.removed.paths()).toEqual([['f:spec', 'f:paused']]);
  });
  it('empty and null containers are leaves', () => {
    const r = compareValues({}, { spec: { template: { spec: { securityContext: {} } } } }, rootType('k8s.io.api.apps.v1.Deployment'));
    expect(r.added.paths()).toContainEqual(['f:spec', 'f:template', 'f:spec', 'f:securityContext']);
  });
});

describe('fieldsOf (ToFieldSet)', () => {
  it('struct fields count through their leaves; map entries and list items are members', () => {
    const s = fieldsOf({ metadata: { labels: { a: '1' }, finalizers: ['x'] }, spec: { selector: { matchLabels: { a: '1' } } } }, rootType('k8s.io.api.apps.v1.Deployment'));
    expect(s.toFieldsV1()).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"x"': {} }, 'f:labels': { 'f:a': {} } },
      'f:spec': { 'f:selector': {} },
    });
  });
  it('an empty struct sets nothing, an empty map entry does', () => {
    expect(fieldsOf({ spec: { strategy: {} } }, rootType('k8s.io.api.apps.v1.Deployment')).isEmpty()).toBe(true);
  });
});

describe('removeItems and normalizeTyped', () => {
  it('removes member subtrees only', () => {
    const set = FieldSet.fromPaths([['f:containers', 'k:{"name":"b"}'], ['f:containers', 'k:{"name":"a"}', 'f:image']]);
    expect(removeItems({ containers: [c('a'), c('b')] }, set, POD_SPEC)).toEqual({ containers: [{ name: 'a' }] });
  });
  it('zero PodSpec: containers is null (no omitempty)', () => {
    expect((normalizeTyped({ spec: {} }, rootType('k8s.io.api.core.v1.Pod')) as any).spec.containers).toBeNull();
  });
  it('fields the schema knows but patchMeta does not are tracked', () => {
    const s = fieldsOf({ spec: { volumes: [{ name: 'v', csi: { driver: 'd', volumeAttributes: { a: '1' } } }] } }, rootType('k8s.io.api.core.v1.Pod'));
    expect(s.has(['f:spec', 'f:volumes', 'k:{"name":"v"}', 'f:csi', 'f:volumeAttributes', 'f:a'])).toBe(true);
  });
  it('adds by-value structs and non-omitempty nulls', () => {
    expect(normalizeTyped({ spec: { template: { spec: { containers: [{ name: 'a' }] } } } }, rootType('k8s.io.api.apps.v1.Deployment'))).toEqual({
      metadata: { creationTimestamp: null },
      spec: {
        selector: null, // *LabelSelector without omitempty
        template: { metadata: { creationTimestamp: null }, spec: { containers: [{ name: 'a', resources: {} }] } },
        strategy: {},
      },
      status: {},
    });
  });
});
