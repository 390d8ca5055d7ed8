// A bitmap range allocator persisted in etcd the way kube's
// allocator/storage.Etcd does it: every allocate/release is one
// read-modify-write (compare-and-swap on mod_revision) of a
// `v1 RangeAllocation{range, data}` at one key, so several API servers share
// the range safely. Errors carry kube's texts ("provided IP is already
// allocated", "range is full", ErrNotInRange).

import { randomInt } from 'node:crypto';
import type { KObject } from '../../../kube/object';
import { StorageError, type Storage } from '../../storage/interface';
import type { RangeAllocatorApi } from '../rest/resourceDef';
import { Bitmap } from './bitmap';
import type { RangeSpec } from './ranges';

export type AllocErrorKind = 'Allocated' | 'Full' | 'NotInRange';

export class AllocationError extends Error {
  constructor(
    readonly kind: AllocErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'AllocationError';
  }
}

export function rangeAllocationObject(spec: string, bm: Bitmap): KObject {
  return { apiVersion: 'v1', kind: 'RangeAllocation', metadata: {}, range: spec, data: Buffer.from(bm.encode()).toString('base64') };
}

export function decodeRangeAllocation(obj: KObject, size: number): { range: string; bitmap: Bitmap } {
  const data = typeof obj.data === 'string' ? Buffer.from(obj.data, 'base64') : new Uint8Array();
  return { range: typeof obj.range === 'string' ? obj.range : '', bitmap: Bitmap.decode(size, data) };
}

export class RangeAllocator<T extends string | number> implements RangeAllocatorApi {
  constructor(
    private readonly storage: Storage,
    /** Full etcd key, e.g. '/registry/ranges/serviceips'. */
    readonly key: string,
    readonly range: RangeSpec<T>,
    /** What "already allocated" says: 'provided IP is already allocated' / 'provided port is already allocated'. */
    private readonly allocatedMessage: string,
    private readonly rand: (n: number) => number = (n) => randomInt(n),
  ) {}

  /** Read-modify-write of the bitmap; creates the RangeAllocation on first use. */
  private async mutate<R>(fn: (bm: Bitmap) => R): Promise<R> {
    for (let attempt = 0; attempt < 5; attempt++) {
      let result: R | undefined;
      try {
        await this.storage.guaranteedUpdate(this.key, undefined, (current) => {
          const { range, bitmap } = decodeRangeAllocation(current, this.range.size);
          if (range && range !== this.range.spec) {
            throw new Error(`the provided range does not match the current range: ${this.range.spec} vs ${range}`);
          }
          result = fn(bitmap);
          return rangeAllocationObject(this.range.spec, bitmap);
        });
        return result as R;
      } catch (e) {
        if (!(e instanceof StorageError && e.code === 'KeyNotFound')) throw e;
      }
      try {
        await this.storage.create(this.key, rangeAllocationObject(this.range.spec, new Bitmap(this.range.size)));
      } catch (e) {
        if (!(e instanceof StorageError && e.code === 'KeyExists')) throw e;
      }
    }
    throw new Error(`could not create the range allocation at ${this.key}`);
  }

  async allocate(value: string | number): Promise<void> {
    const off = this.range.offsetOf(value as T);
    if (off === undefined) throw new AllocationError('NotInRange', this.range.notInRange(value as T));
    await this.mutate((bm) => {
      if (bm.has(off)) throw new AllocationError('Allocated', this.allocatedMessage);
      bm.set(off);
    });
  }

  async allocateNext(): Promise<T> {
    return this.mutate((bm) => {
      const off = bm.nextFree(this.range.offset, this.rand);
      if (off === undefined) throw new AllocationError('Full', 'range is full');
      bm.set(off);
      return this.range.valueAt(off);
    });
  }

  /** The value allocateNext would hand out now, without reserving it (dry-run creates show an IP too). */
  async previewNext(): Promise<T> {
    let bm: Bitmap;
    try {
      bm = decodeRangeAllocation(await this.storage.get(this.key), this.range.size).bitmap;
    } catch (e) {
      if (!(e instanceof StorageError && e.code === 'KeyNotFound')) throw e;
      bm = new Bitmap(this.range.size);
    }
    const off = bm.nextFree(this.range.offset, this.rand);
    if (off === undefined) throw new AllocationError('Full', 'range is full');
    return this.range.valueAt(off);
  }

  /** Releasing a value outside the range or not allocated is a no-op, as in kube. */
  async release(value: string | number): Promise<void> {
    const off = this.range.offsetOf(value as T);
    if (off === undefined) return;
    await this.mutate((bm) => bm.clear(off));
  }

  async has(value: string | number): Promise<boolean> {
    const off = this.range.offsetOf(value as T);
    if (off === undefined) return false;
    try {
      const obj = await this.storage.get(this.key);
      return decodeRangeAllocation(obj, this.range.size).bitmap.has(off);
    } catch (e) {
      if (e instanceof StorageError && e.code === 'KeyNotFound') return false;
      throw e;
    }
  }

  /** How many values are taken (for tests and metrics). */
  async used(): Promise<number> {
    try {
      return decodeRangeAllocation(await this.storage.get(this.key), this.range.size).bitmap.count;
    } catch (e) {
      if (e instanceof StorageError && e.code === 'KeyNotFound') return 0;
      throw e;
    }
  }
}
