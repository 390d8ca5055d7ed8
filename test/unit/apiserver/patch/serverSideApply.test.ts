// Server-side apply: create, merge by list-map keys, ownership, pruning,
// conflicts (kube's exact 409) and force, against kube 1.32 behaviour.

import { describe, expect, it } from 'vitest';
import { StatusError } from '../../../../main/apiserver/api/status';
import { updateManagedFields } from '../../../../main/apiserver/patch/managedFields';
import { apply, LAST_APPLIED_ANNOTATION, parseApplyBody } from '../../../../main/apiserver/patch/serverSideApply';
import { createdDeployment, DEPLOYMENT_MESSAGE, T0, T1 } from './fixtures';

const manifest = (over: Record<string, unknown> = {}, containers: unknown[] = [{ name: 'nginx', image: 'nginx' }]): any => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'nginx', labels: { app: 'nginx' } },
  spec: { replicas: 1, selector: { matchLabels: { app: 'nginx' } }, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers } }, ...over },
});

const ssa = (live: any, applied: any, manager = 'kubectl', force = false, now = T1) =>
  apply({ live, applied, manager, force, apiVersion: 'apps/v1', now, message: DEPLOYMENT_MESSAGE });

/** A Deployment created with client-side apply (manager kubectl-client-side-apply, Update). */
function csaDeployment(): any {
  const d = createdDeployment();
  d.metadata.managedFields = updateManagedFields({ live: undefined, updated: d, manager: 'kubectl-client-side-apply', apiVersion: 'apps/v1', now: T0, message: DEPLOYMENT_MESSAGE });
  return d;
}

function conflictOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('apply: create', () => {
  it('creates the object from the config; the applier owns exactly what it sent', () => {
    const r = ssa(undefined, manifest());
    expect(r.changed).toBe(true);
    const { managedFields, ...meta } = r.object.metadata;
    expect(meta).toEqual({ name: 'nginx', labels: { app: 'nginx' } });
    expect(r.object.spec).toEqual(manifest().spec);
    expect(managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2026-11-30T11:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:replicas': {},
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
            },
          },
        },
      },
    ]);
  });

  it('ports are keyed by containerPort and the defaulted protocol', () => {
    const r = ssa(undefined, manifest({}, [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }] }]));
    const c = (r.managedFields![0].fieldsV1 as any)['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"nginx"}'];
    expect(c['f:ports']).toEqual({ 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } });
  });
});

describe('apply: conflicts', () => {
  it('changing a field another manager owns is kube’s 409', () => {
    const err = conflictOf(() => ssa(csaDeployment(), manifest({ replicas: 3 })));
    expect(err.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.replicas' }] },
      code: 409,
    });
  });

  it('several conflicts are listed per manager', () => {
    const err = conflictOf(() => ssa(csaDeployment(), manifest({ replicas: 3 }, [{ name: 'nginx', image: 'nginx:1.27' }])));
    expect(err.status.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "kubectl-client-side-apply" using apps/v1:\n- .spec.replicas\n- .spec.template.spec.containers[name="nginx"].image',
    );
    expect(err.status.details?.causes?.map((c) => c.field)).toEqual(['.spec.replicas', '.spec.template.spec.containers[name="nginx"].image']);
  });

  it('setting the same value shares ownership without conflict', () => {
    const r = ssa(csaDeployment(), manifest());
    expect(r.changed).toBe(false);
    expect(r.managedFields!.map((e) => [e.manager, e.operation])).toEqual([
      ['kubectl', 'Apply'],
      ['kubectl-client-side-apply', 'Update'],
    ]);
    expect(r.managedFields![0].time).toBeUndefined(); // nothing changed: no time
    expect((r.managedFields![1].fieldsV1 as any)['f:spec']['f:replicas']).toEqual({});
  });

  it('force takes the field over', () => {
    const r = ssa(csaDeployment(), manifest({ replicas: 3 }), 'kubectl', true);
    expect(r.object.spec).toMatchObject({ replicas: 3 });
    expect((r.managedFields![0].fieldsV1 as any)['f:spec']['f:replicas']).toEqual({});
    expect((r.managedFields![1].fieldsV1 as any)['f:spec']['f:replicas']).toBeUndefined();
    expect(r.managedFields![0].time).toBe('2026-11-30T11:00:00Z');
  });

  it('kubectl upgrading from client-side apply takes over fields the last-applied annotation still matches', () => {
    const live = csaDeployment();
    live.metadata.annotations = { [LAST_APPLIED_ANNOTATION]: JSON.stringify(manifest()) + '\n' };
    const r = ssa(live, manifest({ replicas: 3 }));
    expect(r.object.spec).toMatchObject({ replicas: 3 });
    expect(r.managedFields!.find((e) => e.manager === 'kubectl-client-side-apply')!.fieldsV1).not.toHaveProperty(['f:spec', 'f:replicas']);
    // other tools get no such pass
    expect(conflictOf(() => ssa(live, manifest({ replicas: 3 }), 'helm')).status.code).toBe(409);
  });

  it('the upgrade pass does not cover fields changed since the last client-side apply', () => {
    const live = csaDeployment();
    live.metadata.annotations = { [LAST_APPLIED_ANNOTATION]: JSON.stringify(manifest({ replicas: 2 })) + '\n' };
    const err = conflictOf(() => ssa(live, manifest({ replicas: 3 })));
    expect(err.status.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas');
  });

  it('a different applier conflicts with the first applier too', () => {
    const first = ssa(undefined, manifest()).object;
    const err = conflictOf(() => ssa(first, manifest({ replicas: 5 }), 'other-tool'));
    expect(err.status.message).toBe('Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
  });
});

describe('apply: merge and prune', () => {
  it('a second applier adds a container; list items merge by name', () => {
    const first = ssa(undefined, manifest()).object;
    const sidecar = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx' }, spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox' }] } } } };
    const r = ssa(first, sidecar, 'sidecar-injector');
    expect((r.object.spec as any).template.spec.containers).toEqual([
      { name: 'nginx', image: 'nginx' },
      { name: 'sidecar', image: 'busybox' },
    ]);
    expect(r.managedFields!.map((e) => e.manager)).toEqual(['kubectl', 'sidecar-injector']);
  });

  it('a field the applier drops is removed when no one else owns it', () => {
    const first = ssa(undefined, manifest({}, [{ name: 'nginx', image: 'nginx' }])).object;
    (first.metadata.labels as any).extra = 'x';
    const withExtra = ssa(first, { ...manifest(), metadata: { name: 'nginx', labels: { app: 'nginx', extra: 'x' } } }).object;
    const r = ssa(withExtra, manifest());
    expect(r.object.metadata.labels).toEqual({ app: 'nginx' });
  });

  it('a dropped list item goes; one owned by someone else stays', () => {
    const two = ssa(undefined, manifest({}, [{ name: 'nginx', image: 'nginx' }, { name: 'side', image: 'busybox' }])).object;
    expect((ssa(two, manifest()).object.spec as any).template.spec.containers.map((c: any) => c.name)).toEqual(['nginx']);

    const shared = ssa(two, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx' }, spec: { template: { spec: { containers: [{ name: 'side', image: 'busybox' }] } } } }, 'other').object;
    expect((ssa(shared, manifest()).object.spec as any).template.spec.containers.map((c: any) => c.name)).toEqual(['nginx', 'side']);
  });

  it('atomic fields are replaced whole (selector, tolerations)', () => {
    const first = ssa(undefined, manifest({ selector: { matchLabels: { app: 'nginx', x: '1' } } })).object;
    const r = ssa(first, manifest());
    expect((r.object.spec as any).selector).toEqual({ matchLabels: { app: 'nginx' } });
  });

  it('re-applying the same config is a no-op', () => {
    const first = ssa(undefined, manifest()).object;
    const r = ssa(first, manifest(), 'kubectl', false, new Date('2026-12-01T00:00:00Z'));
    expect(r.changed).toBe(false);
    expect(r.object).toEqual(first);
  });

  it('kubectl keeps the client-side last-applied annotation in step', () => {
    const live = csaDeployment();
    live.metadata.annotations = { [LAST_APPLIED_ANNOTATION]: '{"old":true}\n' };
    const r = ssa(live, manifest({ replicas: 3 }), 'kubectl', true);
    const want = JSON.parse(r.object.metadata.annotations![LAST_APPLIED_ANNOTATION]);
    expect(want).toEqual(manifest({ replicas: 3 }));
    expect(r.object.metadata.annotations![LAST_APPLIED_ANNOTATION].endsWith('}\n')).toBe(true);
    expect(r.object.metadata.annotations![LAST_APPLIED_ANNOTATION].startsWith('{"apiVersion":"apps/v1","kind":"Deployment","metadata"')).toBe(true);
  });
});

describe('apply: bad requests', () => {
  const cases: { name: string; applied: any; message: string }[] = [
    { name: 'wrong version', applied: { ...manifest(), apiVersion: 'apps/v1beta1' }, message: 'Incorrect version specified in apply patch. Specified patch version: apps/v1beta1, expected: apps/v1' },
    { name: 'no apiVersion', applied: { kind: 'Deployment', metadata: { name: 'nginx' } }, message: 'Incorrect version specified in apply patch. Specified patch version: , expected: apps/v1' },
    { name: 'managedFields in the config', applied: { ...manifest(), metadata: { name: 'nginx', managedFields: [] } }, message: 'metadata.managedFields must be nil' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const err = conflictOf(() => ssa(undefined, c.applied));
      expect(err.status).toMatchObject({ code: 400, reason: 'BadRequest', message: c.message });
    });
  }
});

describe('apply: invalid list items (500, as kube)', () => {
  const cases: { name: string; containers: unknown[]; message: string }[] = [
    {
      name: 'a container without a name',
      containers: [{ image: 'nginx' }],
      message:
        'failed to create typed patch object (default/nginx; apps/v1, Kind=Deployment): .spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    },
    {
      name: 'duplicate env and ports',
      containers: [{ name: 'c', env: [{ name: 'FOO', value: 'x' }, { name: 'FOO', value: 'y' }], ports: [{ containerPort: 93 }, { containerPort: 93, protocol: 'TCP' }] }],
      message:
        'failed to create typed patch object (default/nginx; apps/v1, Kind=Deployment): errors:\n  .spec.template.spec.containers[name="c"].env: duplicate entries for key [name="FOO"]\n  .spec.template.spec.containers[name="c"].ports: duplicate entries for key [containerPort=93,protocol="TCP"]',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const applied = manifest({}, c.containers);
      applied.metadata.namespace = 'default';
      const err = conflictOf(() => ssa(undefined, applied));
      expect(err.status).toMatchObject({ code: 500, reason: '', message: c.message });
    });
  }
  it('a missing protocol is defaulted, not an error', () => {
    expect(() => ssa(undefined, manifest({}, [{ name: 'c', ports: [{ containerPort: 80 }] }]))).not.toThrow();
  });
});

describe('parseApplyBody', () => {
  it('reads YAML and JSON', () => {
    expect(parseApplyBody('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "1"\n')).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: '1' } });
    expect(parseApplyBody(Buffer.from('{"apiVersion":"v1"}'))).toEqual({ apiVersion: 'v1' });
    expect(parseApplyBody('')).toEqual({});
  });
  it('rejects a non-object', () => {
    expect(() => parseApplyBody('- a\n- b\n')).toThrowError(
      expect.objectContaining({ status: expect.objectContaining({ code: 400, message: 'error decoding YAML: json: cannot unmarshal array into Go value of type map[string]interface {}' }) }),
    );
    expect(() => parseApplyBody('a: [')).toThrowError(expect.objectContaining({ status: expect.objectContaining({ code: 400 }) }));
  });
});
