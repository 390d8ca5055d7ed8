import { describe, expect, test } from 'vitest';
import { decodeErrorMessage, strictDecode, strictDecodingMessage } from '../../../../main/kube/schema/index';

const deploy = { group: 'apps', version: 'v1', kind: 'Deployment' };
const pod = { group: '', version: 'v1', kind: 'Pod' };

const deployment = (spec: Record<string, unknown>) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec });
const template = (container: Record<string, unknown>) => ({
  metadata: { labels: { app: 'x' } },
  spec: { containers: [{ name: 'c', image: 'nginx', ...container }] },
});

describe('strict decoding: unknown and duplicate fields (kube test/integration/apiserver/fieldvalidation)', () => {
  const cases: { name: string; gvk: typeof deploy; body?: unknown; raw?: string; want: string[] }[] = [
    { name: 'a clean body', gvk: deploy, body: deployment({ replicas: 2, template: template({}) }), want: [] },
    {
      name: 'a misspelt container field, with its list index',
      gvk: deploy,
      body: deployment({ template: template({ imagePullPolicyy: 'Always' }) }),
      want: ['unknown field "spec.template.spec.containers[0].imagePullPolicyy"'],
    },
    {
      name: 'several unknown fields in document order, case-sensitive keys',
      gvk: deploy,
      body: deployment({ foo: 1, Replicas: 2, template: template({}), bar: { x: 1 } }),
      want: ['unknown field "spec.foo"', 'unknown field "spec.Replicas"', 'unknown field "spec.bar"'],
    },
    {
      name: 'inline structs: volume sources and probe handlers are known, their neighbours are not',
      gvk: pod,
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p', labels: { any: 'thing' } },
        spec: {
          volumes: [{ name: 'v', emptyDir: {}, configMap: { name: 'cm', optional: true, nope: 1 } }],
          containers: [{ name: 'c', readinessProbe: { httpGet: { port: 80 }, periodSeconds: 1 }, env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }],
        },
      },
      want: ['unknown field "spec.volumes[0].configMap.nope"'],
    },
    {
      name: 'free JSON (managedFields fieldsV1) is not checked; unknown top-level keys are',
      gvk: pod,
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', managedFields: [{ fieldsV1: { 'f:anything': {} } }] }, extra: true },
      want: ['unknown field "extra"'],
    },
    {
      name: 'duplicate keys need the raw text, and come in document order with unknown ones',
      gvk: deploy,
      raw: '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"a":"1","a":"2"}},"spec":{"replicas":1,"unknownField":1,"replicas":2}}',
      want: ['duplicate field "metadata.labels.a"', 'unknown field "spec.unknownField"', 'duplicate field "spec.replicas"'],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const body = c.body ?? JSON.parse(c.raw!);
      const got = strictDecode(c.gvk, body, c.raw);
      expect(got.typeError).toBeUndefined();
      expect(got.strictErrors).toEqual(c.want);
    });
  }

  test('the 400 message, one and several errors', () => {
    expect(strictDecodingMessage(deploy, ['unknown field "spec.foo"'])).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"',
    );
    expect(strictDecodingMessage(pod, ['unknown field "a"', 'unknown field "b"'])).toBe(
      'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "a", unknown field "b"',
    );
  });

  test('decodeErrorMessage: strict errors fail only under Strict, type errors always', () => {
    const unknown = strictDecode(deploy, deployment({ foo: 1 }));
    expect(decodeErrorMessage(deploy, unknown, false)).toBeUndefined();
    expect(decodeErrorMessage(deploy, unknown, true)).toContain('strict decoding error: unknown field "spec.foo"');
    const typed = strictDecode(deploy, deployment({ replicas: 'two', foo: 1 }));
    expect(decodeErrorMessage(deploy, typed, false)).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
  });

  test('kinds without a schema are not checked', () => {
    expect(strictDecode({ group: 'example.com', version: 'v1', kind: 'Widget' }, { spec: { anything: 1 } })).toEqual({ strictErrors: [] });
  });
});

describe('type errors in Go encoding/json wording', () => {
  const cases: { name: string; gvk: typeof deploy; body?: unknown; raw?: string; want: string }[] = [
    {
      name: 'string into an int32 pointer',
      gvk: deploy,
      body: deployment({ replicas: '2' }),
      want: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    },
    {
      name: 'a fraction into an integer keeps the literal',
      gvk: deploy,
      raw: '{"spec":{"replicas":1.5}}',
      want: 'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32',
    },
    {
      name: 'int32 overflow',
      gvk: deploy,
      raw: '{"spec":{"template":{"spec":{"containers":[{"name":"c","ports":[{"containerPort":2147483648}]}]}}}}',
      want: 'json: cannot unmarshal number 2147483648 into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
    },
    {
      name: 'list element field: innermost struct, path without indices',
      gvk: deploy,
      body: deployment({ template: template({ name: 5 }) }),
      want: 'json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.name of type string',
    },
    {
      name: 'object where a list belongs',
      gvk: pod,
      body: { spec: { containers: { name: 'c' } } },
      want: 'json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container',
    },
    {
      name: 'string where a struct belongs',
      gvk: deploy,
      body: { spec: 'nope' },
      want: 'json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec',
    },
    {
      name: 'map value of the wrong type',
      gvk: pod,
      body: { metadata: { labels: { a: true } } },
      want: 'json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string',
    },
    {
      name: 'bool into a bool pointer is fine, number is not',
      gvk: pod,
      body: { spec: { automountServiceAccountToken: 1 } },
      want: 'json: cannot unmarshal number into Go struct field PodSpec.spec.automountServiceAccountToken of type bool',
    },
    {
      name: 'a malformed quantity',
      gvk: pod,
      body: { spec: { containers: [{ name: 'c', resources: { limits: { memory: '512 MB' } } }] } },
      want: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    },
    {
      name: 'IntOrString that is neither',
      gvk: deploy,
      body: deployment({ strategy: { rollingUpdate: { maxSurge: true } } }),
      want: 'json: cannot unmarshal bool into Go value of type int32',
    },
    {
      name: 'a time that is not RFC3339',
      gvk: pod,
      body: { metadata: { creationTimestamp: 'yesterday' } },
      want: 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    },
    {
      name: 'named string types print as Go names them',
      gvk: pod,
      body: { spec: { containers: [{ name: 'c', imagePullPolicy: 1 }] } },
      want: 'json: cannot unmarshal number into Go struct field Container.spec.containers.imagePullPolicy of type v1.PullPolicy',
    },
    {
      name: 'named element types of lists, and named map types',
      gvk: pod,
      body: { spec: { containers: [{ name: 'c', securityContext: { capabilities: { add: [true] } } }] } },
      want: 'json: cannot unmarshal bool into Go struct field Capabilities.spec.containers.securityContext.capabilities.add of type v1.Capability',
    },
    {
      name: 'a string where a ResourceList belongs',
      gvk: pod,
      body: { spec: { containers: [{ name: 'c', resources: { limits: '1' } }] } },
      want: 'json: cannot unmarshal string into Go struct field ResourceRequirements.spec.containers.resources.limits of type v1.ResourceList',
    },
    {
      name: 'fields of an inline struct belong to the outer struct',
      gvk: pod,
      body: { spec: { volumes: [{ name: 'v', hostPath: { path: '/x', type: 5 } }] } },
      want: 'json: cannot unmarshal number into Go struct field HostPathVolumeSource.spec.volumes.hostPath.type of type v1.HostPathType',
    },
    {
      name: 'the first type error in document order wins',
      gvk: deploy,
      body: deployment({ paused: 'yes', replicas: 'two' }),
      want: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool',
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const body = c.body ?? JSON.parse(c.raw!);
      expect(strictDecode(c.gvk, body, c.raw).typeError).toBe(c.want);
    });
  }

  test('null is accepted anywhere, as Go leaves the zero value', () => {
    expect(strictDecode(deploy, deployment({ replicas: null, selector: null, template: null }))).toEqual({ strictErrors: [] });
  });
});
