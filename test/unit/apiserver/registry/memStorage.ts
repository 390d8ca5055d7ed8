// An in-memory Storage for registry tests: the same create / get /
// guaranteedUpdate / delete contract as the etcd store (kube's error texts,
// preconditions, a lost race reruns on the fresh object, a no-op update
// writes nothing), revisions as resourceVersion; lists without paging or
// predicates, and no watches (test/unit/apiserver/storage/memStorageConformance.test.ts
// lists what of the storage conformance table it does not do).

import type { KObject } from '../../../../main/kube/object';
import type { GetOptions, Preconditions, Storage, UpdateFunc } from '../../../../main/apiserver/storage/interface';
import { checkPreconditions, keyExists, keyNotFound, tooLargeResourceVersion } from '../../../../main/apiserver/storage/errors';

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
    if (!e) throw keyNotFound(key);
    const obj = JSON.parse(e.obj) as KObject;
    obj.metadata.resourceVersion = String(e.rev);
    return obj;
  }
  private revOf(key: string): bigint | undefined {
    return this.data.get(key)?.rev;
  }
  async create(key: string, obj: KObject): Promise<KObject> {
    if (obj.metadata?.resourceVersion) throw new Error('resourceVersion should not be set on objects to be created');
    if (this.data.has(key)) throw keyExists(key);
    return this.put(key, obj);
  }
  async get(key: string, opts?: GetOptions): Promise<KObject> {
    const rv = opts?.resourceVersion;
    if (rv && rv !== '0' && BigInt(rv) > this.rev) throw tooLargeResourceVersion(key, BigInt(rv), this.rev);
    return this.read(key);
  }
  async getList(prefix: string) {
    const items = [...this.data.keys()].filter((k) => k.startsWith(prefix)).map((k) => this.read(k));
    return { items, resourceVersion: String(this.rev) };
  }
  /** Like Txn(ModRevision(key)=seen): a write made while tryUpdate ran makes it run again on the fresh object. */
  async guaranteedUpdate(key: string, pre: Preconditions | undefined, tryUpdate: UpdateFunc): Promise<KObject> {
    for (;;) {
      const cur = this.read(key);
      checkPreconditions(key, pre, cur);
      const next = await tryUpdate(JSON.parse(JSON.stringify(cur)));
      if (this.revOf(key) !== BigInt(cur.metadata.resourceVersion!)) continue;
      const { resourceVersion: _next, ...nextMeta } = next.metadata;
      const { resourceVersion: _cur, ...curMeta } = cur.metadata;
      if (JSON.stringify({ ...next, metadata: nextMeta }) === JSON.stringify({ ...cur, metadata: curMeta })) return cur;
      return this.put(key, next);
    }
  }
  async delete(key: string, pre?: Preconditions, validate?: (current: KObject) => void | Promise<void>): Promise<KObject> {
    for (;;) {
      const cur = this.read(key);
      checkPreconditions(key, pre, cur);
      await validate?.(cur);
      if (this.revOf(key) !== BigInt(cur.metadata.resourceVersion!)) continue;
      this.data.delete(key);
      return cur;
    }
  }
  watch(): never {
    throw new Error('not used');
  }
  async currentRevision(): Promise<bigint> {
    return this.rev;
  }
  async close(): Promise<void> {}
}
