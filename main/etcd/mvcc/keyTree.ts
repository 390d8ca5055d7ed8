// The ordered index of every key that has retained history (etcd treeIndex):
// a B+ tree from binary-string key to its KeyIndex. Range visits touch only
// the keys inside the range, in ascending byte order.

import BTreeImport from 'sorted-btree';
import { KeyIndex } from './keyIndex';
import type { RangeEnd } from './keyBytes';

// sorted-btree is CommonJS with `exports.default`: native Node ESM hands us the
// exports object, bundlers hand us the class. Accept both.
const BTree: typeof BTreeImport =
  (BTreeImport as unknown as { default?: typeof BTreeImport }).default ?? BTreeImport;

/** Return true to stop the visit early. */
export type KeyVisitor = (ki: KeyIndex) => boolean | void;

export class KeyTree {
  private readonly tree = new BTree<string, KeyIndex>(undefined, compareStrings);

  get size(): number {
    return this.tree.size;
  }

  get(key: string): KeyIndex | undefined {
    return this.tree.get(key);
  }

  /** The key's index, created if missing. */
  getOrCreate(key: string, bytes: Uint8Array): KeyIndex {
    let ki = this.tree.get(key);
    if (ki === undefined) {
      ki = new KeyIndex(key, bytes);
      this.tree.set(key, ki);
    }
    return ki;
  }

  delete(key: string): void {
    this.tree.delete(key);
  }

  /** Visits the keys of a range in ascending order (see RangeEnd). */
  visit(key: string, end: RangeEnd, visitor: KeyVisitor): void {
    if (end === undefined) {
      const ki = this.tree.get(key);
      if (ki !== undefined) visitor(ki);
      return;
    }
    let high: string;
    let includeHigh: boolean;
    if (end === null) {
      const max = this.tree.maxKey();
      if (max === undefined) return;
      high = max;
      includeHigh = true;
    } else {
      high = end;
      includeHigh = false;
    }
    if (key > high || (key === high && !includeHigh)) return;
    this.tree.editRange(key, high, includeHigh, (_k, ki) => (visitor(ki) === true ? { break: true } : undefined));
  }

  /** Every key index in ascending key order. */
  forEach(visitor: (ki: KeyIndex) => void): void {
    this.tree.forEach((ki) => visitor(ki));
  }
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
