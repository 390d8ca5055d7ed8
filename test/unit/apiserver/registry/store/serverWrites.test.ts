// The registry store on its own: the create, update and delete lifecycles
// called the way the server's own writes call them — a user and a namespace,
// no HTTP request — over the in-memory storage.

import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../../main/kube/object';
import { findResource } from '../../../../../main/apiserver/registry';
import { scopeFor, type ResourceScope } from '../../../../../main/apiserver/registry/store/scope';
import { createInStore } from '../../../../../main/apiserver/registry/store/create';
import { updateInStore } from '../../../../../main/apiserver/registry/store/update';
import { deleteInStore } from '../../../../../main/apiserver/registry/store/delete';
import { SYSTEM_APISERVER, type WriteRequest } from '../../../../../main/apiserver/registry/store/writeRequest';
import { MemStorage } from '../memStorage';
import { NOW } from '../ctx';

function configMaps(): ResourceScope {
  const storage = new MemStorage();
  const def = findResource('', 'v1', 'configmaps')!;
  return scopeFor(def, storage, { etcdPrefix: '/registry', storageFor: () => storage, admission: [], now: () => NOW });
}

const asServer: WriteRequest = { user: SYSTEM_APISERVER, namespace: 'default', dryRun: false, fieldManager: 'kube-apiserver', operation: 'Update' };

describe('registry store without a request', () => {
  it('creates, updates with a resourceVersion check, and deletes a ConfigMap', async () => {
    const scope = configMaps();
    const created = await createInStore(scope, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { a: '1' } }, asServer);
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.creationTimestamp).toBe('2026-03-01T12:00:00Z');
    expect(created.metadata?.managedFields?.[0]).toMatchObject({ manager: 'kube-apiserver', operation: 'Update' });
    const rv = created.metadata!.resourceVersion!;

    const strategy = scope.def.strategy;
    const updated = await updateInStore(scope, {
      ...asServer,
      name: 'c',
      strategy,
      allowCreate: false,
      requireResourceVersion: true,
      updatedObject: (current) => ({ ...(current as KObject), data: { a: '2' } }),
    });
    expect(updated.created).toBe(false);
    expect((updated.object as unknown as { data: Record<string, string> }).data).toEqual({ a: '2' });
    expect(updated.object.metadata?.resourceVersion).not.toBe(rv);

    await expect(
      updateInStore(scope, {
        ...asServer,
        name: 'c',
        strategy,
        allowCreate: false,
        requireResourceVersion: true,
        updatedObject: (current) => ({ ...(current as KObject), metadata: { ...(current as KObject).metadata, resourceVersion: rv }, data: { a: '3' } }),
      }),
    ).rejects.toMatchObject({ status: { code: 409, reason: 'Conflict' } });

    const gone = await deleteInStore(scope, 'c', { dryRun: false }, asServer);
    expect(gone.kind).toBe('status');
    await expect(deleteInStore(scope, 'c', { dryRun: false }, asServer)).rejects.toMatchObject({ status: { code: 404, reason: 'NotFound' } });
  });
});
