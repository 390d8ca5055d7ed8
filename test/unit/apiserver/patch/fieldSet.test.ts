// FieldsV1 encoding/decoding and set operations, against managedFields as
// kube-apiserver writes them.

import { describe, expect, it } from 'vitest';
import { FieldSet, keyElement, pathString, valueElement } from '../../../../main/apiserver/patch/fieldSet';

// managedFields[0].fieldsV1 of `kubectl create deployment nginx --image=nginx` (kube 1.32).
const CREATE_DEPLOYMENT = {
  'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
  'f:spec': {
    'f:progressDeadlineSeconds': {},
    'f:replicas': {},
    'f:revisionHistoryLimit': {},
    'f:selector': {},
    'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
    'f:template': {
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      'f:spec': {
        'f:containers': {
          'k:{"name":"nginx"}': {
            '.': {},
            'f:image': {},
            'f:imagePullPolicy': {},
            'f:name': {},
            'f:resources': {},
            'f:terminationMessagePath': {},
            'f:terminationMessagePolicy': {},
          },
        },
        'f:dnsPolicy': {},
        'f:restartPolicy': {},
        'f:schedulerName': {},
        'f:securityContext': {},
        'f:terminationGracePeriodSeconds': {},
      },
    },
  },
};

describe('FieldsV1', () => {
  it('round-trips kube’s encoding byte for byte', () => {
    const s = FieldSet.fromFieldsV1(CREATE_DEPLOYMENT);
    expect(JSON.stringify(s.toFieldsV1())).toBe(JSON.stringify(CREATE_DEPLOYMENT));
  });

  it('"." makes the node itself a member', () => {
    const s = FieldSet.fromFieldsV1(CREATE_DEPLOYMENT);
    expect(s.has(['f:metadata', 'f:labels'])).toBe(true);
    expect(s.has(['f:metadata'])).toBe(false);
    expect(s.has(['f:spec', 'f:strategy'])).toBe(false);
    expect(s.has(['f:spec', 'f:strategy', 'f:rollingUpdate'])).toBe(true);
    expect(s.has(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"nginx"}', 'f:image'])).toBe(true);
  });

  it('sorts elements as SMD does (fields, keys, values; keys by value)', () => {
    const s = FieldSet.fromPaths([
      ['f:spec', 'f:ports', keyElement({ protocol: 'TCP', port: 443 })],
      ['f:spec', 'f:ports', keyElement({ port: 80, protocol: 'TCP' })],
      ['f:metadata', 'f:finalizers', valueElement('b')],
      ['f:metadata', 'f:finalizers', valueElement('a')],
      ['f:apiVersion'],
    ]);
    expect(JSON.stringify(s.toFieldsV1())).toBe(
      '{"f:apiVersion":{},"f:metadata":{"f:finalizers":{"v:\\"a\\"":{},"v:\\"b\\"":{}}},"f:spec":{"f:ports":{"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"TCP\\"}":{}}}}',
    );
  });

  it('rejects malformed elements', () => {
    expect(() => FieldSet.fromFieldsV1({ 'x:y': {} })).toThrow(/unknown path element/);
    expect(() => FieldSet.fromFieldsV1([])).toThrow();
  });
});

describe('set operations', () => {
  const a = FieldSet.fromPaths([['f:a'], ['f:b', 'f:c'], ['f:b', 'f:d']]);
  const b = FieldSet.fromPaths([['f:b', 'f:c'], ['f:e']]);
  const cases: { name: string; got: () => FieldSet; want: string[][] }[] = [
    { name: 'union', got: () => a.union(b), want: [['f:a'], ['f:e'], ['f:b', 'f:c'], ['f:b', 'f:d']] },
    { name: 'difference', got: () => a.difference(b), want: [['f:a'], ['f:b', 'f:d']] },
    { name: 'intersection', got: () => a.intersection(b), want: [['f:b', 'f:c']] },
    { name: 'recursiveDifference', got: () => a.recursiveDifference(FieldSet.fromPaths([['f:b']])), want: [['f:a']] },
    { name: 'withFieldAncestors', got: () => FieldSet.fromPaths([['f:b', 'f:c']]).withFieldAncestors(), want: [['f:b'], ['f:b', 'f:c']] },
  ];
  for (const c of cases) it(c.name, () => expect(c.got().paths()).toEqual(c.want));

  it('empty', () => {
    expect(new FieldSet().isEmpty()).toBe(true);
    expect(a.difference(a).isEmpty()).toBe(true);
    expect(a.difference(a).toFieldsV1()).toEqual({});
  });
});

describe('pathString', () => {
  const cases: [string[], string][] = [
    [['f:spec', 'f:replicas'], '.spec.replicas'],
    [['f:spec', 'f:containers', 'k:{"name":"nginx"}', 'f:image'], '.spec.containers[name="nginx"].image'],
    [['f:spec', 'f:ports', 'k:{"port":80,"protocol":"TCP"}'], '.spec.ports[port=80,protocol="TCP"]'],
    [['f:metadata', 'f:finalizers', 'v:"x"'], '.metadata.finalizers[="x"]'],
    [['f:a', 'i:3'], '.a[3]'],
  ];
  for (const [p, want] of cases) it(want, () => expect(pathString(p)).toBe(want));
});
