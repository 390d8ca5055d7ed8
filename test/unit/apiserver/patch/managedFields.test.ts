// managedFields for non-apply writes, against what kube 1.32 records.

import { describe, expect, it } from 'vitest';
import { decodeManagedFields, encodeManagedFields, managerIdentifier, managerOrUserAgent, updateManagedFields } from '../../../../main/apiserver/patch/managedFields';
import { CREATE_FIELDS, createdDeployment, DEPLOYMENT_MESSAGE, T0, T1 } from './fixtures';

const update = (live: any, updated: any, manager: string, extra: object = {}) =>
  updateManagedFields({ live, updated, manager, apiVersion: 'apps/v1', now: T1, message: DEPLOYMENT_MESSAGE, ...extra });

function stored(): any {
  const d = createdDeployment();
  d.metadata.managedFields = updateManagedFields({ live: undefined, updated: d, manager: 'kubectl-create', apiVersion: 'apps/v1', now: T0, message: DEPLOYMENT_MESSAGE });
  return d;
}

describe('updateManagedFields', () => {
  it('kubectl create deployment records kube’s exact entry', () => {
    expect(stored().metadata.managedFields).toEqual([
      { manager: 'kubectl-create', operation: 'Update', apiVersion: 'apps/v1', time: '2026-11-30T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: CREATE_FIELDS },
    ]);
    expect(JSON.stringify(stored().metadata.managedFields[0].fieldsV1)).toBe(JSON.stringify(CREATE_FIELDS));
  });

  it('the same result without the zero-valued fields kube adds on decode', () => {
    const d = createdDeployment();
    delete d.status;
    delete d.metadata.creationTimestamp;
    delete d.spec.template.metadata.creationTimestamp;
    const mf = updateManagedFields({ live: undefined, updated: d, manager: 'kubectl-create', apiVersion: 'apps/v1', now: T0, message: DEPLOYMENT_MESSAGE });
    expect(mf?.[0].fieldsV1).toEqual(CREATE_FIELDS);
  });

  it('kubectl scale: the scaler owns replicas, the creator loses it', () => {
    const live = stored();
    const next = structuredClone(live);
    next.spec.replicas = 3;
    const mf = update(live, next, 'kubectl', { subresource: 'scale' })!;
    expect(mf.map((e) => [e.manager, e.subresource, e.time])).toEqual([
      ['kubectl-create', undefined, '2026-11-30T10:00:00Z'],
      ['kubectl', 'scale', '2026-11-30T11:00:00Z'],
    ]);
    expect(mf[1]).toEqual({ manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1', time: '2026-11-30T11:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, subresource: 'scale' });
    expect((mf[0].fieldsV1 as any)['f:spec']['f:replicas']).toBeUndefined();
  });

  it('a write that changes nothing leaves managedFields as they were', () => {
    const live = stored();
    expect(update(live, structuredClone(live), 'kubectl-edit')).toEqual(live.metadata.managedFields);
  });

  it('a second write by the same manager merges into its entry and moves its time', () => {
    const live = stored();
    const next = structuredClone(live);
    next.metadata.labels.tier = 'web';
    const mf = update(live, next, 'kubectl-create')!;
    expect(mf).toHaveLength(1);
    expect(mf[0].time).toBe('2026-11-30T11:00:00Z');
    expect((mf[0].fieldsV1 as any)['f:metadata']).toEqual({ 'f:labels': { '.': {}, 'f:app': {}, 'f:tier': {} } });
  });

  it('removing a field takes it from its owner; an emptied entry disappears', () => {
    const live = stored();
    live.metadata.managedFields.push({ manager: 'labeler', operation: 'Update', apiVersion: 'apps/v1', time: '2026-11-30T10:30:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, 'f:x': {} } } } });
    live.metadata.annotations = { x: '1' };
    const next = structuredClone(live);
    delete next.metadata.annotations;
    const mf = update(live, next, 'kubectl-edit')!;
    expect(mf.map((e) => e.manager)).toEqual(['kubectl-create']);
  });

  it('a client that sends managedFields sets them; a subresource write uses the live ones', () => {
    const live = stored();
    const next = structuredClone(live);
    next.metadata.managedFields = [{ manager: 'mine', operation: 'Update', apiVersion: 'apps/v1', time: '2026-11-30T09:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:paused': {} } } }];
    expect(update(live, next, 'kubectl-edit')!.map((e) => e.manager)).toEqual(['mine']);
    expect(update(live, next, 'kubectl-edit', { subresource: 'status' })!.map((e) => e.manager)).toEqual(['kubectl-create']);
  });

  it('managedFields: [] or [{}] in a write clears them; only this write’s changes remain', () => {
    for (const reset of [[], [{}]]) {
      const live = stored();
      const next = structuredClone(live);
      next.metadata.managedFields = reset;
      expect(update(live, next, 'kubectl-edit')).toBeUndefined();
      next.spec.replicas = 4;
      expect(update(live, next, 'kubectl-edit')).toEqual([
        { manager: 'kubectl-edit', operation: 'Update', apiVersion: 'apps/v1', time: '2026-11-30T11:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
      ]);
    }
  });

  it('ignored paths (reset fields) are never owned', () => {
    const live = stored();
    const next = structuredClone(live);
    next.status = { replicas: 1 };
    expect(update(live, next, 'x', { ignoredPaths: [['status']] })).toEqual(live.metadata.managedFields);
    expect(update(live, next, 'x')!.map((e) => e.manager)).toEqual(['kubectl-create', 'x']);
  });

  it('a status write owns only what it changed in status, and takes nothing of spec from others', () => {
    const live = stored();
    const next = structuredClone(live);
    next.status = { replicas: 1 };
    next.spec.replicas = 9; // the status strategy would reset this; it must not be owned either way
    delete next.spec.strategy; // nor may a removal under spec take fields from kubectl-create
    const mf = update(live, next, 'kubelet', { subresource: 'status', ignoredPaths: [['spec']] })!;
    expect(mf.find((e) => e.manager === 'kubectl-create')).toEqual(live.metadata.managedFields[0]);
    expect(mf.find((e) => e.manager === 'kubelet')!.fieldsV1).toEqual({ 'f:status': { 'f:replicas': {} } }); // status existed ({}): only the new field
  });
});

describe('the Update-entry cap', () => {
  it('the oldest Update entries fold into ancient-changes past ten', () => {
    let obj: any = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} };
    for (let i = 0; i < 12; i++) {
      const next = structuredClone(obj);
      next.data[`k${i}`] = String(i);
      next.metadata.managedFields = updateManagedFields({
        live: obj,
        updated: next,
        manager: `m${String(i).padStart(2, '0')}`,
        apiVersion: 'v1',
        now: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
        message: 'k8s.io.api.core.v1.ConfigMap',
      });
      obj = next;
    }
    const mf = obj.metadata.managedFields;
    expect(mf).toHaveLength(10);
    // m00 became the bucket when m01 joined it, then m02 too; the bucket takes the newest merged time.
    expect(mf[0]).toMatchObject({ manager: 'ancient-changes', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:02Z' });
    expect(Object.keys(mf[0].fieldsV1['f:data'])).toEqual(['f:k0', 'f:k1', 'f:k2']);
    expect(mf.slice(1).map((e: any) => e.manager)).toEqual(['m03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09', 'm10', 'm11']);
  });
});

describe('managedFields encoding', () => {
  it('sorts Apply before Update, then by time and manager', () => {
    const entries = [
      { manager: 'b', operation: 'Update' as const, apiVersion: 'v1', time: '2026-01-01T00:00:02Z', fieldsType: 'FieldsV1' as const, fieldsV1: { 'f:a': {} } },
      { manager: 'a', operation: 'Update' as const, apiVersion: 'v1', time: '2026-01-01T00:00:02Z', fieldsType: 'FieldsV1' as const, fieldsV1: { 'f:b': {} } },
      { manager: 'z', operation: 'Update' as const, apiVersion: 'v1', time: '2026-01-01T00:00:01Z', fieldsType: 'FieldsV1' as const, fieldsV1: { 'f:c': {} } },
      { manager: 'k', operation: 'Apply' as const, apiVersion: 'v1', time: '2026-01-01T00:00:09Z', fieldsType: 'FieldsV1' as const, fieldsV1: { 'f:d': {} } },
    ];
    expect(encodeManagedFields(decodeManagedFields(entries))!.map((e) => e.manager)).toEqual(['k', 'z', 'a', 'b']);
  });
  it('identity: apiVersion only for Update', () => {
    expect(managerIdentifier({ manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1' })).toBe('{"manager":"kubectl","operation":"Apply"}');
    expect(managerIdentifier({ manager: 'k', operation: 'Update', apiVersion: 'apps/v1', subresource: 'status' })).toBe('{"manager":"k","operation":"Update","apiVersion":"apps/v1","subresource":"status"}');
  });
  it('manager from the User-Agent', () => {
    expect(managerOrUserAgent(undefined, 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc')).toBe('kubectl');
    expect(managerOrUserAgent('mine', 'kubectl/v1.32.0')).toBe('mine');
    expect(managerOrUserAgent(undefined, 'x'.repeat(200))).toHaveLength(128);
  });
});
