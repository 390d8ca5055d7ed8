import { describe, expect, test } from 'vitest';
import { fromProto, kubeSchema, normalize, toProto, Schema } from '../../../../main/kube/schema/index';
import { goShapes } from '../../../../main/kube/schema/goShape';
import { kubeProtoRoot } from '../../../../main/kube/schema/protoRoot';

const D = 'k8s.io.api.apps.v1.Deployment';

// What `kubectl create deployment nginx --image=nginx` leaves in the API
// after defaulting, as `kubectl get deploy nginx -o json` shows it.
const storedDeployment = {
  kind: 'Deployment',
  apiVersion: 'apps/v1',
  metadata: {
    name: 'nginx',
    namespace: 'default',
    uid: '5f7e0c1e-8a55-4c43-9f0e-0a4f7a4d2d11',
    generation: 1,
    creationTimestamp: '2024-05-01T10:00:00Z',
    labels: { app: 'nginx' },
    annotations: { 'deployment.kubernetes.io/revision': '1' },
  },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'nginx' } },
    template: {
      metadata: { creationTimestamp: null, labels: { app: 'nginx' } },
      spec: {
        containers: [
          {
            name: 'nginx',
            image: 'nginx',
            resources: {},
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
            imagePullPolicy: 'Always',
          },
        ],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        securityContext: {},
        schedulerName: 'default-scheduler',
      },
    },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  },
  status: {},
};

function withoutType(obj: Record<string, unknown>): Record<string, unknown> {
  const { kind: _k, apiVersion: _a, ...rest } = obj;
  return rest;
}

describe('JSON → protobuf → JSON shows what kube shows', () => {
  const cases: { name: string; message: string; input: Record<string, unknown>; want: Record<string, unknown> }[] = [
    { name: 'a stored deployment round-trips unchanged', message: D, input: storedDeployment, want: withoutType(storedDeployment) },
    {
      name: 'value structs appear, zero omitempty scalars vanish, set pointers stay',
      message: D,
      input: { metadata: { name: 'x', generation: 0 }, spec: { replicas: 0, paused: false, minReadySeconds: 0, template: {} } },
      want: {
        metadata: { name: 'x', creationTimestamp: null },
        spec: { replicas: 0, template: { metadata: { creationTimestamp: null }, spec: {} }, strategy: {} },
        status: {},
      },
    },
    {
      name: 'Time drops sub-second precision and offsets become UTC',
      message: 'k8s.io.api.core.v1.Namespace',
      input: { metadata: { name: 'ns', creationTimestamp: '2024-05-01T12:00:00.987+02:00', deletionTimestamp: '2024-05-01T10:00:05Z' } },
      want: {
        metadata: { name: 'ns', creationTimestamp: '2024-05-01T10:00:00Z', deletionTimestamp: '2024-05-01T10:00:05Z' },
        spec: {},
        status: {},
      },
    },
    {
      name: 'MicroTime keeps microseconds (Lease renewTime), pointer scalars in LeaseSpec',
      message: 'k8s.io.api.coordination.v1.Lease',
      input: {
        metadata: { name: 'node1', namespace: 'kube-node-lease', creationTimestamp: '2024-05-01T10:00:00Z' },
        spec: { holderIdentity: 'node1', leaseDurationSeconds: 40, renewTime: '2024-05-01T10:00:01.123456789Z' },
      },
      want: {
        metadata: { name: 'node1', namespace: 'kube-node-lease', creationTimestamp: '2024-05-01T10:00:00Z' },
        spec: { holderIdentity: 'node1', leaseDurationSeconds: 40, renewTime: '2024-05-01T10:00:01.123456Z' },
      },
    },
    {
      name: 'Secret data stays base64, bytes survive exactly',
      message: 'k8s.io.api.core.v1.Secret',
      input: { metadata: { name: 's' }, data: { bin: Buffer.from([0, 255, 10]).toString('base64'), pw: 'aHVudGVyMg==' }, type: 'Opaque' },
      want: { metadata: { name: 's', creationTimestamp: null }, data: { bin: 'AP8K', pw: 'aHVudGVyMg==' }, type: 'Opaque' },
    },
    {
      name: 'Service: IntOrString both ways, status.loadBalancer always shown',
      message: 'k8s.io.api.core.v1.Service',
      input: {
        metadata: { name: 'web' },
        spec: {
          ports: [
            { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 },
            { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 'metrics' },
          ],
          selector: { app: 'web' },
          clusterIP: '10.96.0.10',
          clusterIPs: ['10.96.0.10'],
          type: 'ClusterIP',
          sessionAffinity: 'None',
          ipFamilies: ['IPv4'],
          ipFamilyPolicy: 'SingleStack',
          internalTrafficPolicy: 'Cluster',
        },
      },
      want: {
        metadata: { name: 'web', creationTimestamp: null },
        spec: {
          ports: [
            { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 },
            { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 'metrics' },
          ],
          selector: { app: 'web' },
          clusterIP: '10.96.0.10',
          clusterIPs: ['10.96.0.10'],
          type: 'ClusterIP',
          sessionAffinity: 'None',
          ipFamilies: ['IPv4'],
          ipFamilyPolicy: 'SingleStack',
          internalTrafficPolicy: 'Cluster',
        },
        status: { loadBalancer: {} },
      },
    },
    {
      name: 'Event: zero timestamps as null, reportingComponent/Instance shown empty',
      message: 'k8s.io.api.core.v1.Event',
      input: {
        metadata: { name: 'e1', namespace: 'default' },
        involvedObject: { kind: 'Pod', name: 'p' },
        reason: 'Scheduled',
        type: 'Normal',
        count: 1,
      },
      want: {
        metadata: { name: 'e1', namespace: 'default', creationTimestamp: null },
        involvedObject: { kind: 'Pod', name: 'p' },
        reason: 'Scheduled',
        source: {},
        firstTimestamp: null,
        lastTimestamp: null,
        count: 1,
        type: 'Normal',
        eventTime: null,
        reportingComponent: '',
        reportingInstance: '',
      },
    },
    {
      name: 'Pod: inline structs (volume sources, probe handler, key selectors), quantities, env valueFrom',
      message: 'k8s.io.api.core.v1.Pod',
      input: {
        metadata: { name: 'p', namespace: 'default', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true, blockOwnerDeletion: true }] },
        spec: {
          volumes: [
            { name: 'cfg', configMap: { name: 'app-config', defaultMode: 420 } },
            { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
          ],
          containers: [
            {
              name: 'app',
              image: 'app:1',
              env: [{ name: 'PW', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
              resources: { limits: { memory: '128Mi', cpu: '500m' }, requests: { cpu: '100m' } },
              readinessProbe: { tcpSocket: { port: 'http' }, periodSeconds: 5 },
              ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
            },
          ],
          tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
        },
        status: { phase: 'Running', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, image: 'app:1', imageID: '', state: { waiting: { reason: 'ContainerCreating' } } }] },
      },
      want: {
        metadata: {
          name: 'p',
          namespace: 'default',
          creationTimestamp: null,
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true, blockOwnerDeletion: true }],
        },
        spec: {
          volumes: [
            { name: 'cfg', configMap: { name: 'app-config', defaultMode: 420 } },
            { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
          ],
          containers: [
            {
              name: 'app',
              image: 'app:1',
              ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
              env: [{ name: 'PW', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
              resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m' } },
              readinessProbe: { tcpSocket: { port: 'http' }, periodSeconds: 5 },
            },
          ],
          tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
        },
        status: {
          phase: 'Running',
          containerStatuses: [
            { name: 'app', state: { waiting: { reason: 'ContainerCreating' } }, lastState: {}, ready: false, restartCount: 0, image: 'app:1', imageID: '' },
          ],
        },
      },
    },
    {
      name: 'managedFields: fieldsV1 is free JSON, time is a pointer Time',
      message: 'k8s.io.api.core.v1.ConfigMap',
      input: {
        metadata: {
          name: 'c',
          managedFields: [
            { manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: '2024-05-01T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k': {} } } },
          ],
        },
        data: { k: 'v' },
      },
      want: {
        metadata: {
          name: 'c',
          creationTimestamp: null,
          managedFields: [
            { manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', time: '2024-05-01T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k': {} } } },
          ],
        },
        data: { k: 'v' },
      },
    },
    {
      name: 'Node with an empty status shows kube\'s always-present status structs',
      message: 'k8s.io.api.core.v1.Node',
      input: { metadata: { name: 'n1' } },
      want: {
        metadata: { name: 'n1', creationTimestamp: null },
        spec: {},
        status: {
          daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
          nodeInfo: {
            machineID: '',
            systemUUID: '',
            bootID: '',
            kernelVersion: '',
            osImage: '',
            containerRuntimeVersion: '',
            kubeletVersion: '',
            kubeProxyVersion: '',
            operatingSystem: '',
            architecture: '',
          },
        },
      },
    },
    {
      name: 'Scale (autoscaling/v1): status.replicas shown even when zero',
      message: 'k8s.io.api.autoscaling.v1.Scale',
      input: { metadata: { name: 'nginx', namespace: 'default' }, spec: { replicas: 3 }, status: { selector: 'app=nginx' } },
      want: { metadata: { name: 'nginx', namespace: 'default', creationTimestamp: null }, spec: { replicas: 3 }, status: { replicas: 0, selector: 'app=nginx' } },
    },
    {
      name: 'unknown fields are dropped',
      message: 'k8s.io.api.core.v1.ConfigMap',
      input: { metadata: { name: 'c', bogus: 1 }, data: { a: 'b' }, extra: true },
      want: { metadata: { name: 'c', creationTimestamp: null }, data: { a: 'b' } },
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const got = fromProto(c.message, toProto(c.message, c.input));
      expect(got).toEqual(c.want);
    });
  }

  test('keys come out in Go struct order, not input order', () => {
    const got = fromProto(D, toProto(D, storedDeployment));
    expect(Object.keys(got)).toEqual(['metadata', 'spec', 'status']);
    expect(Object.keys(got.metadata as object)).toEqual(['name', 'namespace', 'uid', 'generation', 'creationTimestamp', 'labels', 'annotations']);
    expect(Object.keys(got.spec as object)).toEqual(['replicas', 'selector', 'template', 'strategy', 'revisionHistoryLimit', 'progressDeadlineSeconds']);
    const container = ((got.spec as any).template.spec.containers as object[])[0];
    expect(Object.keys(container)).toEqual(['name', 'image', 'resources', 'terminationMessagePath', 'terminationMessagePolicy', 'imagePullPolicy']);
  });

  test('normalize keeps kind/apiVersion in front', () => {
    const got = normalize(D, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'a' } });
    expect(Object.keys(got).slice(0, 2)).toEqual(['kind', 'apiVersion']);
  });

  test('encoding is deterministic and map keys are sorted on the wire', () => {
    const a = toProto('k8s.io.api.core.v1.ConfigMap', { metadata: { name: 'c' }, data: { b: '2', a: '1', c: '3' } });
    const b = toProto('k8s.io.api.core.v1.ConfigMap', { metadata: { name: 'c' }, data: { c: '3', a: '1', b: '2' } });
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    const got = fromProto('k8s.io.api.core.v1.ConfigMap', a);
    expect(Object.keys(got.data as object)).toEqual(['a', 'b', 'c']);
  });
});

describe('schema', () => {
  test('the type tree describes fields by JSON name with their kinds', () => {
    const schema = kubeSchema();
    const spec = schema.message('k8s.io.api.apps.v1.DeploymentSpec');
    const byName = Object.fromEntries(spec.fields.map((f) => [f.jsonName, f]));
    expect(byName.replicas).toMatchObject({ id: 1, type: { kind: 'integer', format: 'int32' }, goValue: false });
    expect(byName.selector.type).toEqual({ kind: 'object', message: 'k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector' });
    expect(byName.template).toMatchObject({ goValue: true });
    const meta = schema.message('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    const metaFields = Object.fromEntries(meta.fields.map((f) => [f.jsonName, f]));
    expect(metaFields.labels.type).toEqual({ kind: 'map', value: { kind: 'string' } });
    expect(metaFields.creationTimestamp.type).toEqual({ kind: 'time' });
    expect(metaFields.managedFields.type).toEqual({ kind: 'array', items: { kind: 'object', message: 'k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry' } });
    const rr = schema.message('k8s.io.api.core.v1.ResourceRequirements');
    expect(rr.fields[0].type).toEqual({ kind: 'map', value: { kind: 'quantity' } });
    const port = schema.message('k8s.io.api.core.v1.ServicePort');
    expect(port.fields.find((f) => f.jsonName === 'targetPort')!.type).toEqual({ kind: 'intOrString' });
    expect(schema.message('k8s.io.api.core.v1.Secret').fields.find((f) => f.jsonName === 'data')!.type).toEqual({ kind: 'map', value: { kind: 'bytes' } });
  });

  test('a misspelt goShape entry stops the schema from loading', () => {
    goShapes.DeploymentSpec = { ...goShapes.DeploymentSpec, ptr: 'replicas revisionHistoryLimit progressDeadlineSecond' };
    try {
      expect(() => new Schema(kubeProtoRoot())).toThrow('goShape: DeploymentSpec has no field progressDeadlineSecond');
    } finally {
      goShapes.DeploymentSpec = { value: 'template strategy', ptr: 'replicas revisionHistoryLimit progressDeadlineSeconds' };
    }
    expect(() => new Schema(kubeProtoRoot())).not.toThrow();
  });
});
