// Each write a store makes is decoded once, not twice. The store decodes the
// bytes it wrote to answer the write, and its watch cache decodes the same
// bytes again when the write's watch event comes (same key, same
// mod_revision: the same bytes). Whichever of the two sees them first
// decodes and leaves a copy for the other. The event often comes first: a
// member notifies watchers while applying a write, before it answers the Txn.

import type { KObject } from '../../kube/object';
import { jsonCopy } from '../patch/jsonValue';

/** Copies wait milliseconds for their taker; the bound covers those never taken (a key nobody watches, a lost race). */
const MAX_WAITING = 1024;

export class WriteHandoff {
  /** Keys with a write in flight (how many). */
  private readonly inFlight = new Map<string, number>();
  /** A decoded object waiting for the other side, by etcd key. */
  private readonly waiting = new Map<string, { rev: bigint; obj: KObject }>();

  /** Runs a write of key k, marked as in flight until it is answered. */
  async writing<T>(k: string, write: () => Promise<T>): Promise<T> {
    this.inFlight.set(k, (this.inFlight.get(k) ?? 0) + 1);
    try {
      return await write();
    } finally {
      const left = this.inFlight.get(k)! - 1;
      if (left > 0) this.inFlight.set(k, left);
      else this.inFlight.delete(k);
    }
  }

  /** The object the write of k stored at rev: the copy its event left, or decoded (leaving a copy for the event). */
  written(k: string, rev: bigint, decode: () => KObject): KObject {
    return this.take(k, rev) ?? this.leave(k, rev, decode());
  }

  /** A put event's object: the copy a write left, or decoded (leaving a copy when a write of k is in flight). */
  event<E>(k: string, rev: bigint, decode: () => KObject | E): KObject | E {
    const taken = this.take(k, rev);
    if (taken) return taken;
    const obj = decode();
    if (this.inFlight.has(k) && isObject(obj)) this.leave(k, rev, obj);
    return obj;
  }

  private leave(k: string, rev: bigint, obj: KObject): KObject {
    this.waiting.delete(k);
    if (this.waiting.size >= MAX_WAITING) this.waiting.delete(this.waiting.keys().next().value!);
    this.waiting.set(k, { rev, obj: jsonCopy(obj) });
    return obj;
  }

  private take(k: string, rev: bigint): KObject | undefined {
    const w = this.waiting.get(k);
    // An older copy is of a write whose event or answer will not come now.
    if (!w || w.rev > rev) return undefined;
    this.waiting.delete(k);
    return w.rev === rev ? w.obj : undefined;
  }
}

function isObject(v: unknown): v is KObject {
  return typeof v === 'object' && v !== null && !(v instanceof Error);
}
