// The watch cache's window of recent changes (kube's watchCache cyclic
// buffer): the last `capacity` events, oldest evicted first. A watch from
// resourceVersion N is served from here if nothing after N was evicted;
// otherwise it gets 410 "too old resource version: N (oldest-1)", with kube's
// rule for "oldest": right after a (re)list nothing was evicted yet, so the
// oldest deliverable revision is listRV+1 even when the window is empty.

import { tooOldResourceVersion } from './errors';
import type { ObjectEvent } from './watchEvents';

export class EventWindow {
  private buf: (ObjectEvent | undefined)[];
  /** Index (monotonic) of the oldest event held and one past the newest. */
  private start = 0;
  private end = 0;
  private listRV = 0n;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`watch cache capacity must be a positive integer, got ${capacity}`);
    this.buf = new Array(capacity);
  }

  /** Empties the window after a list at listRV. */
  reset(listRV: bigint): void {
    this.buf = new Array(this.capacity);
    this.start = 0;
    this.end = 0;
    this.listRV = listRV;
  }

  get size(): number {
    return this.end - this.start;
  }

  push(ev: ObjectEvent): void {
    if (this.size === this.capacity) {
      this.buf[this.start % this.capacity] = undefined;
      this.start++;
    }
    this.buf[this.end % this.capacity] = ev;
    this.end++;
  }

  /** The oldest revision a watch can start right after (kube's oldest-1). */
  oldestServable(): bigint {
    if (this.start === 0) return this.listRV;
    return this.buf[this.start % this.capacity]!.rev - 1n;
  }

  /** Every held event with rev > rv, oldest first; Expired when some were already evicted. */
  since(rv: bigint, key = ''): ObjectEvent[] {
    const oldest = this.oldestServable();
    if (rv < oldest) throw tooOldResourceVersion(key, rv, oldest);
    // Binary search for the first event after rv.
    let lo = this.start;
    let hi = this.end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.buf[mid % this.capacity]!.rev <= rv) lo = mid + 1;
      else hi = mid;
    }
    const out: ObjectEvent[] = [];
    for (let i = lo; i < this.end; i++) out.push(this.buf[i % this.capacity]!);
    return out;
  }
}
