// The namespace deletion flow's pure parts: the NamespaceLifecycle admission
// plugin (404 missing namespace, 403 Terminating with cause
// NamespaceTerminating, immortal namespaces), the finalize strategy (only
// spec.finalizers changes) and when an update deletes a Terminating namespace.

import { describe, expect, it } from 'vitest';
import type { KObject } from '../../../../main/kube/object';
import { StatusError } from '../../../../main/apiserver/api/status';
import type { AdmissionAttributes } from '../../../../main/apiserver/admission/interfaces';
import { apiResourceList } from '../../../../main/apiserver/discovery/legacyDiscovery';
import { namespaceLifecycle } from '../../../../main/apiserver/admission/namespaceLifecycle';
import { shouldDeleteDuringUpdate } from '../../../../main/apiserver/registry/store/update';
import { namespaceFinalizeStrategy, namespaces } from '../../../../main/apiserver/registry/core/namespaces';
import { testContext } from '../registry/ctx';
import { MemStorage } from '../registry/memStorage';

const user = { username: 'admin', groups: ['system:masters'] };
const attrs = (over: Partial<AdmissionAttributes>): AdmissionAttributes => ({
  operation: 'CREATE', group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', subresource: '', namespace: 'x', name: 'c', user, dryRun: false, warnings: [], auditAnnotations: {}, ...over,
});

async function plugin(phase: string | undefined) {
  const storage = new MemStorage();
  if (phase) await storage.create('/registry/namespaces/x', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' }, status: { phase } } as KObject);
  return namespaceLifecycle({ etcdPrefix: '/registry', storageFor: () => storage });
}

async function statusOf(run: () => Promise<unknown> | unknown): Promise<unknown> {
  try {
    await run();
    return 'allowed';
  } catch (err) {
    if (err instanceof StatusError) return err.status;
    throw err;
  }
}

describe('NamespaceLifecycle admission', () => {
  it('refuses creates in a Terminating namespace with kube\'s 403 and cause', async () => {
    const p = await plugin('Terminating');
    expect(await statusOf(() => p.admit!(attrs({})))).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: 'configmaps "c" is forbidden: unable to create new content in namespace x because it is being terminated',
      details: { name: 'c', kind: 'configmaps', causes: [{ reason: 'NamespaceTerminating', message: 'namespace x is being terminated', field: 'metadata.namespace' }] },
    });
  });

  it.each([
    ['create in an Active namespace', 'Active', attrs({}), 'allowed'],
    ['update in a Terminating namespace', 'Terminating', attrs({ operation: 'UPDATE' }), 'allowed'],
    ['delete in a Terminating namespace', 'Terminating', attrs({ operation: 'DELETE' }), 'allowed'],
    ['create of a namespace', undefined, attrs({ kind: 'Namespace', resource: 'namespaces', namespace: '' }), 'allowed'],
  ])('allows %s', async (_what, phase, a, want) => {
    const p = await plugin(phase);
    expect(await statusOf(() => p.admit!(a))).toBe(want);
  });

  it('answers 404 namespaces "x" not found for a create in a missing namespace', async () => {
    const p = await plugin(undefined);
    expect(await statusOf(() => p.admit!(attrs({})))).toMatchObject({ code: 404, reason: 'NotFound', message: 'namespaces "x" not found', details: { name: 'x', kind: 'namespaces' } });
  });

  it.each(['default', 'kube-system', 'kube-public'])('refuses to delete %s', async (name) => {
    const p = await plugin(undefined);
    const a = attrs({ operation: 'DELETE', kind: 'Namespace', resource: 'namespaces', namespace: '', name });
    expect(await statusOf(() => p.validate!(a))).toMatchObject({ code: 403, reason: 'Forbidden', message: `namespaces "${name}" is forbidden: this namespace may not be deleted` });
    expect(await statusOf(() => p.validate!({ ...a, name: 'team-a' }))).toBe('allowed');
  });
});

const terminating = (): KObject =>
  ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'x', uid: 'u1', resourceVersion: '5', labels: { a: 'b' }, deletionTimestamp: '2026-03-01T12:00:00Z' },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Terminating' },
  }) as KObject;

describe('namespaces/finalize', () => {
  it('is served for update only, as kube lists it', () => {
    expect(namespaces.subresources.find((s) => s.name === 'finalize')).toEqual({ name: 'finalize', kind: { group: '', version: 'v1', kind: 'Namespace' }, verbs: ['update'] });
    expect(namespaces.subresourceStrategies?.finalize).toBe(namespaceFinalizeStrategy);
    const list = apiResourceList([namespaces], '', 'v1') as { resources: { name: string }[] };
    expect(list.resources.filter((r) => r.name.startsWith('namespaces/'))).toEqual([
      { name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] },
      { name: 'namespaces/status', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
    ]);
  });

  it('changes only spec.finalizers', () => {
    const old = terminating();
    const obj = { ...terminating(), metadata: { name: 'x', resourceVersion: '5', labels: { c: 'd' } }, spec: { finalizers: [] }, status: { phase: 'Active' } } as KObject;
    namespaceFinalizeStrategy.prepareForUpdate(obj, old, testContext());
    expect(obj).toEqual({ ...terminating(), spec: {} });
    expect(namespaceFinalizeStrategy.validateUpdate(obj, old, testContext())).toEqual([]);
  });

  it('refuses a finalizer name that is neither standard nor qualified', () => {
    const obj = { ...terminating(), spec: { finalizers: ['kubernetes', 'bogus'] } } as KObject;
    const errs = namespaceFinalizeStrategy.validateUpdate(obj, terminating(), testContext());
    expect(errs).toEqual([{ type: 'FieldValueInvalid', field: 'spec.finalizers[1]', badValue: 'bogus', detail: 'name is neither a standard finalizer name nor is it fully qualified' }]);
  });

  it.each([
    ['both lists empty', {}, [], true],
    ['spec.finalizers left', { finalizers: ['kubernetes'] }, [], false],
    ['metadata.finalizers left', {}, ['example.com/hold'], false],
  ])('deletes a Terminating namespace during the update: %s', (_what, spec, metaFinalizers, want) => {
    const obj = { ...terminating(), spec, metadata: { ...terminating().metadata, finalizers: metaFinalizers } } as KObject;
    expect(shouldDeleteDuringUpdate(obj, terminating())).toBe(want);
  });
});
