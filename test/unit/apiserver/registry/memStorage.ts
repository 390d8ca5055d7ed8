// An in-memory Storage for registry tests: the same create / guaranteedUpdate
// / delete contract (KeyExists, KeyNotFound, revisions as resourceVersion),
// without watches.

import type { KObject } from '../../../../main/kube/object';
import { StorageError, type Storage } from '../../../../main/apiserver/storage/interface';

export class MemStorage implements Storage {
  rev = 1n;
  readonly data = new Map<string, { obj: string; rev: bigint }>();
  writes = 0;

  private put(key: string, obj: KObject): KObject {
    this.rev++;
    this.writes++;
    const copy = JSON.parse(JSON.stringify(obj)) as KObject;
    delete copy.metadata.resourceVersion;
    this.data.set(key, { obj: JSON.stringify(copy), rev: this.rev });
    return { ...copy, metadata: { ...copy.metadata, resourceVersion: String(this.rev) } };
  }
  private read(key: string): KObject {
    const e = this.data.get(key);
    if (!e) throw new StorageError('KeyNotFound', key, `key not found: ${key}`);
    const obj = JSON.parse(e.obj) as KObject;
    obj.metadata.resourceVersion = String(e.rev);
    return obj;
  }
  async create(key: string, obj: KObject): Promise<KObject> {
    if (this.data.has(key)) throw new StorageError('KeyExists', key, `key exists: ${key}`);
    return this.put(key, obj);
  }
  async get(key: string): Promise<KObject> {
    return this.read(key);
  }
  async getList(prefix: string) {
    const items = [...this.data.keys()].filter((k) => k.startsWith(prefix)).map((k) => this.read(k));
    return { items, resourceVersion: String(this.rev) };
  }
  async guaranteedUpdate(key: string, _pre: unknown, tryUpdate: (o: KObject) => KObject | Promise<KObject>): Promise<KObject> {
    const cur = this.read(key);
    const next = await tryUpdate(JSON.parse(JSON.stringify(cur)));
    return this.put(key, next);
  }
  async delete(key: string): Promise<KObject> {
    const cur = this.read(key);
    this.data.delete(key);
    return cur;
  }
  watch(): never {
    throw new Error('not used');
  }
  async currentRevision(): Promise<bigint> {
    return this.rev;
  }
  async close(): Promise<void> {}
}
