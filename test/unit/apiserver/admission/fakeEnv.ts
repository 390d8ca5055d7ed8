// An in-memory ServerEnv for the admission plugins' unit tests: objects by
// etcd key (<prefix>/<resource>/<ns>/<name>), get/getList/create/
// guaranteedUpdate/delete with resourceVersions, and a TraceRecorder-free
// attribute builder.

import type { KObject } from '../../../../main/kube/object';
import type { AdmissionAttributes } from '../../../../main/apiserver/admission/interfaces';
import type { ServerEnv } from '../../../../main/apiserver/serverEnv';
import { StorageError, type Storage } from '../../../../main/apiserver/storage/interface';

export interface FakeEnv extends ServerEnv {
  objects: Map<string, KObject>;
  logs: string[];
  put(resource: string, obj: KObject): void;
  read(resource: string, namespace: string, name: string): KObject | undefined;
  /** guaranteedUpdate calls per key. */
  updates: string[];
}

export function fakeEnv(): FakeEnv {
  const objects = new Map<string, KObject>();
  const logs: string[] = [];
  const updates: string[] = [];
  let rv = 1;
  const notFound = (key: string) => new StorageError('KeyNotFound', key, `key not found: ${key}`);
  const storage: Storage = {
    async create(key, obj) {
      if (objects.has(key)) throw new StorageError('KeyExists', key, 'exists');
      const o = structuredClone(obj);
      o.metadata.resourceVersion = String(++rv);
      objects.set(key, o);
      return structuredClone(o);
    },
    async get(key) {
      const o = objects.get(key);
      if (!o) throw notFound(key);
      return structuredClone(o);
    },
    async getList(prefix) {
      const items = [...objects.entries()].filter(([k]) => k.startsWith(prefix)).map(([, o]) => structuredClone(o));
      return { items, resourceVersion: String(rv) };
    },
    // Compare-and-swap with retries, as the etcd store: a value changed while tryUpdate ran is read again.
    async guaranteedUpdate(key, _pre, tryUpdate) {
      for (let attempt = 0; attempt < 100; attempt++) {
        const cur = objects.get(key);
        if (!cur) throw notFound(key);
        const next = structuredClone(await tryUpdate(structuredClone(cur)));
        if (objects.get(key) !== cur) continue;
        updates.push(key);
        next.metadata.resourceVersion = String(++rv);
        objects.set(key, next);
        return structuredClone(next);
      }
      throw new Error('guaranteedUpdate: too many conflicts');
    },
    async delete(key) {
      const cur = objects.get(key);
      if (!cur) throw notFound(key);
      objects.delete(key);
      return cur;
    },
    watch() {
      throw new Error('not in the fake');
    },
    async currentRevision() {
      return BigInt(rv);
    },
    async close() {},
  };
  const keyFor = (resource: string, _group: string, namespace: string, name: string) => `/registry/${resource}/${namespace ? `${namespace}/` : ''}${name}`;
  return {
    etcdPrefix: '/registry',
    storageFor: () => storage,
    keyFor,
    resources: () => [],
    authorize: async () => ({ decision: 'allow' as const }),
    createObject: async (obj) => obj,
    now: () => new Date('2026-01-01T00:00:00Z'),
    log: (l) => logs.push(l),
    objects,
    logs,
    updates,
    put(resource, obj) {
      const o = structuredClone(obj);
      o.metadata.resourceVersion ??= String(++rv);
      objects.set(keyFor(resource, '', obj.metadata.namespace ?? '', obj.metadata.name!), o);
    },
    read(resource, namespace, name) {
      return objects.get(keyFor(resource, '', namespace, name));
    },
  };
}

export function podCreate(pod: Record<string, unknown>, namespace = 'default'): AdmissionAttributes {
  const obj = { apiVersion: 'v1', kind: 'Pod', ...pod } as unknown as KObject;
  obj.metadata ??= {};
  obj.metadata.namespace ??= namespace;
  return {
    operation: 'CREATE',
    group: '',
    version: 'v1',
    kind: 'Pod',
    resource: 'pods',
    subresource: '',
    namespace,
    name: obj.metadata.name ?? '',
    user: { username: 'admin', groups: ['system:masters'] },
    dryRun: false,
    object: obj,
    warnings: [],
    auditAnnotations: {},
  };
}
