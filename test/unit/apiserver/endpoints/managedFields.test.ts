// recordManagedFields on create: remembered entries for objects that differ
// only in unowned metadata must be exactly what a fresh computation gives
// (with the new time), and anything owned must still tell objects apart.

import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { recordManagedFields } from '../../../../main/apiserver/registry/store/managedFields';
import type { ResourceScope } from '../../../../main/apiserver/registry/store/scope';
import { updateManagedFields } from '../../../../main/apiserver/patch/managedFields';
import { messageForKind } from '../../../../main/apiserver/patch/patchMeta';

const scope = () => ({ apiVersion: 'v1', def: { kind: 'Pod', subresources: [{ name: 'status' }] } }) as unknown as ResourceScope;

const pod = (name: string, uid: string, container = 'web', extra: Record<string, unknown> = {}): KObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid, creationTimestamp: '2026-11-30T22:00:00Z', labels: { app: 'bench' }, ...extra },
    spec: { containers: [{ name: container, image: 'nginx:1.27', ports: [{ containerPort: 80, protocol: 'TCP' }] }], restartPolicy: 'Always' },
    status: { phase: 'Pending' },
  }) as KObject;

/** What updateManagedFields computes from scratch for a create. */
function fresh(obj: KObject, manager: string, now: Date) {
  return updateManagedFields({ live: undefined, updated: structuredClone(obj), manager, operation: 'Update', apiVersion: 'v1', now, message: messageForKind('v1', 'Pod'), ignoredPaths: [['status']] });
}

function record(s: ResourceScope, obj: KObject, manager: string, now: Date): KObject {
  recordManagedFields(s, undefined, obj, manager, 'Update', '', now);
  return obj;
}

describe('recordManagedFields on create', () => {
  const t1 = new Date('2026-11-30T23:00:00.123Z');
  const t2 = new Date('2026-11-30T23:05:07.999Z');

  it.each([
    ['same shape, other name/uid/creationTimestamp', pod('b', 'u2', 'web', { creationTimestamp: '2026-11-30T23:00:00Z' }), 'kubectl'],
    ['another container name (a list key)', pod('c', 'u3', 'sidecar'), 'kubectl'],
    ['another label', pod('d', 'u4', 'web', { labels: { app: 'bench', tier: 'web' } }), 'kubectl'],
    ['generateName (owned)', pod('e', 'u5', 'web', { generateName: 'e-' }), 'kubectl'],
    ['another manager', pod('f', 'u6'), 'kube-controller-manager'],
  ])('%s: the entries equal a fresh computation at the new time', (_name, obj, manager) => {
    const s = scope();
    const first = record(s, pod('a', 'u1'), 'kubectl', t1);
    expect(first.metadata.managedFields).toEqual(fresh(pod('a', 'u1'), 'kubectl', t1));
    const second = record(s, structuredClone(obj), manager, t2);
    expect(second.metadata.managedFields).toEqual(fresh(obj, manager, t2));
    expect(second.metadata.managedFields![0]!.time).toBe('2026-11-30T23:05:07Z');
  });

  it('entries handed out are copies: changing one does not change the next', () => {
    const s = scope();
    const first = record(s, pod('a', 'u1'), 'kubectl', t1);
    (first.metadata.managedFields![0]!.fieldsV1 as Record<string, unknown>)['f:spec'] = {};
    first.metadata.managedFields![0]!.manager = 'changed';
    const again = record(s, pod('b', 'u2'), 'kubectl', t1);
    expect(again.metadata.managedFields).toEqual(fresh(pod('b', 'u2'), 'kubectl', t1));
  });

  it('managedFields sent with the create are honoured as before (not taken from the memo)', () => {
    const s = scope();
    record(s, pod('a', 'u1'), 'kubectl', t1);
    const sent = [{ manager: 'other', operation: 'Update' as const, apiVersion: 'v1', time: '2026-11-30T20:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } } } }];
    const obj = pod('b', 'u2', 'web', { managedFields: sent });
    const got = record(s, structuredClone(obj), 'kubectl', t2);
    expect(got.metadata.managedFields).toEqual(fresh(obj, 'kubectl', t2));
  });
});
