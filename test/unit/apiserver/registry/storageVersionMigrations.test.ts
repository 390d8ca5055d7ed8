import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { fieldErrorBody } from '../../../../main/apiserver/api/status';
import { storageVersionMigrations as svm } from '../../../../main/apiserver/registry/storagemigration/storageVersionMigrations';
import { fromProto, toProto } from '../../../../main/kube/schema/index';
import { testContext, NOW } from './ctx';

function migration(resource: Record<string, unknown>, status?: Record<string, unknown>): KObject {
  return { apiVersion: 'storagemigration.k8s.io/v1alpha1', kind: 'StorageVersionMigration', metadata: { name: 'secrets-enc', resourceVersion: '5' }, spec: { resource }, ...(status ? { status } : {}) } as unknown as KObject;
}

const messages = (errs: { field: string }[]) => errs.map((e) => `${e.field}: ${fieldErrorBody(e as never)}`);
const cond = (type: string, status: string, reason = 'R') => ({ type, status, reason, lastUpdateTime: '2026-03-01T12:00:00Z' });

describe('StorageVersionMigration validation', () => {
  const cases: { name: string; resource: Record<string, unknown>; want: string[] }[] = [
    { name: 'core resource', resource: { version: 'v1', resource: 'secrets' }, want: [] },
    { name: 'grouped resource', resource: { group: 'apps', version: 'v1', resource: 'deployments' }, want: [] },
    { name: 'nothing named', resource: {}, want: ['spec.resource.resource: Required value: resource is required', 'spec.resource.version: Required value: version is required'] },
    { name: 'no version', resource: { resource: 'secrets' }, want: ['spec.resource.version: Required value: version is required'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(messages(svm.strategy.validate(migration(c.resource), testContext()))).toEqual(c.want);
    });
  }

  it('the resource is immutable, reported at kube\'s bare paths', () => {
    const old = migration({ version: 'v1', resource: 'secrets' });
    const now = migration({ group: 'apps', version: 'v1', resource: 'deployments' });
    expect(messages(svm.strategy.validateUpdate(now, old, testContext()))).toEqual([
      'group: Invalid value: "apps": field is immutable',
      'resource: Invalid value: "deployments": field is immutable',
    ]);
  });
});

describe('StorageVersionMigration status validation', () => {
  const spec = { version: 'v1', resource: 'secrets' };
  const status = svm.statusStrategy!;
  const cases: { name: string; old: Record<string, unknown>; now: Record<string, unknown>; want: string[] }[] = [
    { name: 'resourceVersion set once', old: {}, now: { resourceVersion: '42' }, want: [] },
    { name: 'resourceVersion kept', old: { resourceVersion: '42' }, now: { resourceVersion: '43' }, want: ['status.resourceVersion: Invalid value: "43": cannot be updated'] },
    {
      name: 'resourceVersion a number',
      old: {},
      now: { resourceVersion: 'abc' },
      want: ['status.resourceVersion: Invalid value: "abc": failed to parse resource version "abc": strconv.ParseInt: parsing "abc": invalid syntax'],
    },
    { name: 'running, then succeeded', old: { conditions: [cond('Running', 'True')] }, now: { conditions: [cond('Running', 'False'), cond('Succeeded', 'True')] }, want: [] },
    {
      name: 'running beside succeeded',
      old: {},
      now: { conditions: [cond('Running', 'True'), cond('Succeeded', 'True')] },
      want: [
        'status.conditions: Invalid value: []storagemigration.MigrationCondition{storagemigration.MigrationCondition{Type:"Running", Status:"True", LastUpdateTime:time.Date(2026, time.March, 1, 12, 0, 0, 0, time.Local), Reason:"R", Message:""}, storagemigration.MigrationCondition{Type:"Succeeded", Status:"True", LastUpdateTime:time.Date(2026, time.March, 1, 12, 0, 0, 0, time.Local), Reason:"R", Message:""}}: Running condition cannot be true when success condition is true',
      ],
    },
    {
      name: 'succeeded stays',
      old: { conditions: [cond('Succeeded', 'True')] },
      now: { conditions: [] },
      want: ['status.conditions: Invalid value: []storagemigration.MigrationCondition(nil): Success condition cannot be set to false once it is true'],
    },
    {
      name: 'one condition badly formed',
      old: {},
      now: { conditions: [{ type: 'Running', status: 'Maybe', reason: 'in progress' }, cond('Running', 'False')] },
      want: [
        'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
        'status.conditions[0].lastTransitionTime: Required value',
        'status.conditions[0].reason: Invalid value: "in progress": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or \'_,:\', and must end with an alphanumeric character or \'_\' (e.g. \'my_name\',  or \'MY_NAME\',  or \'MyName\',  or \'ReasonA,ReasonB\',  or \'ReasonA:ReasonB\', regex used for validation is \'[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?\')',
        'status.conditions[1].type: Duplicate value: "Running"',
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(messages(status.validateUpdate(migration(spec, c.now), migration(spec, c.old), testContext()))).toEqual(c.want);
    });
  }

  it('the status endpoint keeps spec; the main endpoint keeps status; create clears it', async () => {
    const ctx = testContext();
    const stored = migration(spec, { resourceVersion: '42' });
    const viaStatus = migration({ version: 'v1', resource: 'configmaps' }, { resourceVersion: '42', conditions: [cond('Running', 'True')] });
    await status.prepareForUpdate(viaStatus, stored, ctx);
    expect((viaStatus as unknown as { spec: unknown }).spec).toEqual({ resource: spec });
    const viaMain = migration(spec, { resourceVersion: '1' });
    await svm.strategy.prepareForUpdate(viaMain, stored, ctx);
    expect((viaMain as unknown as { status: unknown }).status).toEqual({ resourceVersion: '42' });
    const created = migration(spec, { resourceVersion: '1' });
    await svm.strategy.prepareForCreate(created, ctx);
    expect((created as unknown as { status?: unknown }).status).toBeUndefined();
    expect(svm.strategy.allowUnconditionalUpdate).toBe(false);
  });
});

describe('StorageVersionMigration table and protobuf', () => {
  it('prints NAME RESOURCE as resource.version.group', () => {
    expect(svm.table.columns.map((c) => c.name)).toEqual(['Name', 'Resource']);
    expect(svm.table.cells(migration({ version: 'v1', resource: 'secrets' }), NOW)).toEqual(['secrets-enc', 'secrets.v1.']);
    expect(svm.table.cells(migration({ group: 'apps', version: 'v1', resource: 'deployments' }), NOW)).toEqual(['secrets-enc', 'deployments.v1.apps']);
  });

  it('round-trips through kube\'s field numbers', () => {
    const obj = {
      metadata: { name: 'm', creationTimestamp: '2026-03-01T12:00:00Z' },
      spec: { resource: { group: 'apps', version: 'v1', resource: 'deployments' }, continueToken: 'tok' },
      status: { conditions: [{ type: 'Running', status: 'True', lastUpdateTime: '2026-03-01T12:00:00Z', reason: 'StorageVersionMigrationInProgress', message: 'migrated 1 of 2 objects' }], resourceVersion: '42' },
    };
    const bytes = toProto(svm.protoType, obj);
    // spec (field 2) holds resource (field 1) holding group (field 1): 12 .. 0a .. 0a 04 "apps"
    expect(Buffer.from(bytes).includes(Buffer.from([0x0a, 0x04, ...Buffer.from('apps')]))).toBe(true);
    expect(fromProto(svm.protoType, bytes)).toEqual(obj);
  });

  it('a zero spec still carries resource (kube writes the value struct)', () => {
    expect(fromProto(svm.protoType, toProto(svm.protoType, { metadata: { name: 'm' } }))).toMatchObject({ spec: { resource: {} } });
  });
});
