import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { invalid } from '../../../../main/apiserver/api/status';
import { deployments } from '../../../../main/apiserver/registry/apps/deployments';
import { pods } from '../../../../main/apiserver/registry/core/pods';
import { services } from '../../../../main/apiserver/registry/core/services';
import { leases } from '../../../../main/apiserver/registry/coordination/leases';
import type { ResourceDef } from '../../../../main/apiserver/registry/rest/resourceDef';
import { testContext } from './ctx';

/** The message kube-apiserver would return for the object after defaulting. */
function messageFor(def: ResourceDef, obj: KObject): string {
  def.strategy.defaults(obj);
  const errs = def.strategy.validate(obj, testContext());
  return errs.length ? invalid({ group: def.group, kind: def.kind }, obj.metadata.name ?? '', errs).message : '';
}

function deploy(mut: (d: KObject & { spec: Record<string, any> }) => void): KObject {
  const d = {
    metadata: { name: 'nginx', namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'nginx' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
    } as Record<string, any>,
  };
  mut(d);
  return d;
}

function pod(mut: (p: KObject & { spec: Record<string, any> }) => void): KObject {
  const p = { metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } as Record<string, any> };
  mut(p);
  return p;
}

describe('deployment validation messages', () => {
  it.each([
    ['valid', deploy(() => {}), ''],
    ['negative replicas', deploy((d) => (d.spec.replicas = -1)), 'Deployment.apps "nginx" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0'],
    [
      'selector mismatch',
      deploy((d) => (d.spec.template.metadata.labels = { app: 'other' })),
      'Deployment.apps "nginx" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
    ],
    [
      // A nil selector selects nothing, so kube reports the template labels too.
      'missing selector',
      deploy((d) => delete d.spec.selector),
      'Deployment.apps "nginx" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"app":"nginx"}: `selector` does not match template `labels`]',
    ],
    [
      'empty selector',
      deploy((d) => (d.spec.selector = {})),
      'Deployment.apps "nginx" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ],
    ['no containers', deploy((d) => (d.spec.template.spec.containers = [])), 'Deployment.apps "nginx" is invalid: spec.template.spec.containers: Required value'],
    [
      'restartPolicy Never',
      deploy((d) => (d.spec.template.spec.restartPolicy = 'Never')),
      'Deployment.apps "nginx" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ],
    [
      'both 0',
      deploy((d) => (d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } })),
      'Deployment.apps "nginx" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
    ],
    [
      'bad name',
      deploy((d) => (d.metadata.name = 'Nginx')),
      `Deployment.apps "Nginx" is invalid: metadata.name: Invalid value: "Nginx": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
  ])('%s', (_n, obj, want) => expect(messageFor(deployments, obj)).toBe(want));

  it('selector is immutable in apps/v1', () => {
    const old = deploy(() => {});
    const upd = deploy((d) => {
      d.spec.selector = { matchLabels: { app: 'x' } };
      d.spec.template.metadata.labels = { app: 'x' };
    });
    deployments.strategy.defaults(old);
    deployments.strategy.defaults(upd);
    const errs = deployments.strategy.validateUpdate(upd, old, testContext());
    expect(invalid({ group: 'apps', kind: 'Deployment' }, 'nginx', errs).message).toBe(
      'Deployment.apps "nginx" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    );
  });
});

describe('pod validation messages', () => {
  it.each([
    ['valid', pod(() => {}), ''],
    ['no containers', pod((p) => (p.spec.containers = [])), 'Pod "p" is invalid: spec.containers: Required value'],
    ['no image', pod((p) => delete p.spec.containers[0].image), 'Pod "p" is invalid: spec.containers[0].image: Required value'],
    [
      'duplicate names',
      pod((p) => p.spec.containers.push({ name: 'c', image: 'x' })),
      'Pod "p" is invalid: spec.containers[1].name: Duplicate value: "c"',
    ],
    [
      'bad restartPolicy',
      pod((p) => (p.spec.restartPolicy = 'Sometimes')),
      'Pod "p" is invalid: spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ],
    [
      'port out of range',
      pod((p) => (p.spec.containers[0].ports = [{ containerPort: 70000 }])),
      'Pod "p" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    ],
    ['missing name', pod((p) => delete p.metadata.name), 'Pod "" is invalid: metadata.name: Required value: name or generateName is required'],
    [
      'two errors',
      pod((p) => {
        p.spec.containers = [{ name: 'A', image: '' }];
      }),
      `Pod "p" is invalid: [spec.containers[0].name: Invalid value: "A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.containers[0].image: Required value]`,
    ],
  ])('%s', (_n, obj, want) => expect(messageFor(pods, obj)).toBe(want));

  it('pod spec is immutable except images', () => {
    const old = pod(() => {});
    pods.strategy.defaults(old);
    const imageOnly = JSON.parse(JSON.stringify(old));
    imageOnly.spec.containers[0].image = 'busybox:2';
    expect(pods.strategy.validateUpdate(imageOnly, old, testContext())).toEqual([]);
    const other = JSON.parse(JSON.stringify(old));
    other.spec.restartPolicy = 'Never';
    const errs = pods.strategy.validateUpdate(other, old, testContext());
    expect(errs).toHaveLength(1);
    expect(errs[0].field).toBe('spec');
    expect(errs[0].type).toBe('FieldValueForbidden');
    expect(errs[0].detail).toContain(
      'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
    );
    const added = JSON.parse(JSON.stringify(old));
    added.spec.containers.push({ name: 'd', image: 'x' });
    pods.strategy.defaults(added);
    expect(pods.strategy.validateUpdate(added, old, testContext())[0]).toMatchObject({ field: 'spec.containers', detail: 'pod updates may not add or remove containers' });
  });
});

describe('service and lease validation messages', () => {
  const svc = (spec: Record<string, unknown>, name = 'web'): KObject => ({ metadata: { name, namespace: 'default' }, spec });
  it.each([
    ['valid', svc({ ports: [{ port: 80 }] }), ''],
    [
      'DNS-1035 name',
      svc({ ports: [{ port: 80 }] }, '1web'),
      `Service "1web" is invalid: metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    ],
    ['no ports', svc({}), 'Service "web" is invalid: spec.ports: Required value'],
    ['headless without ports', svc({ clusterIP: 'None', clusterIPs: ['None'] }), ''],
    ['clusterIP without clusterIPs (never after allocation)', svc({ clusterIP: '10.96.0.9', ports: [{ port: 80 }] }), 'Service "web" is invalid: spec.clusterIPs: Required value'],
    ['unnamed second port', svc({ ports: [{ port: 80, name: 'http' }, { port: 443 }] }), 'Service "web" is invalid: spec.ports[1].name: Required value'],
    ['port 0', svc({ ports: [{ port: 0, targetPort: 80 }] }), 'Service "web" is invalid: spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive'],
    [
      'bad type',
      svc({ type: 'Magic', ports: [{ port: 80 }] }),
      'Service "web" is invalid: spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ],
    ['headless NodePort', svc({ type: 'NodePort', clusterIP: 'None', clusterIPs: ['None'], ports: [{ port: 80 }] }), `Service "web" is invalid: spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`],
    ['ExternalName without a name', svc({ type: 'ExternalName' }), 'Service "web" is invalid: spec.externalName: Required value'],
    ['ExternalName with a cluster IP', svc({ type: 'ExternalName', externalName: 'example.com.', clusterIPs: ['10.96.0.5'] }), 'Service "web" is invalid: spec.clusterIPs: Forbidden: may not be set for ExternalName services'],
    ['bad cluster IP', svc({ clusterIP: '10.96.0.300', clusterIPs: ['10.96.0.300'], ports: [{ port: 80 }] }), 'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
    [
      'duplicate port',
      svc({ ports: [{ name: 'a', port: 80 }, { name: 'b', port: 80 }] }),
      'Service "web" is invalid: spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    ],
    ['nodePort on ClusterIP', svc({ ports: [{ port: 80, nodePort: 30001 }] }), "Service \"web\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"],
  ])('%s', (_n, obj, want) => expect(messageFor(services, obj)).toBe(want));

  it('lease duration must be positive', () => {
    expect(messageFor(leases, { metadata: { name: 'n1', namespace: 'kube-node-lease' }, spec: { leaseDurationSeconds: 0 } })).toBe(
      'Lease.coordination.k8s.io "n1" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    );
  });
});
