// A bounded FIFO of the last indexes of append messages sent to one follower
// but not yet acknowledged (etcd-io/raft tracker/inflights.go). A ring buffer:
// adding and freeing never shift the array.

import { RaftPanic } from '../errors';
import type { Index } from '../types';

export class Inflights {
  private start = 0;
  private _count = 0;
  private buffer: Index[] | undefined;

  constructor(readonly size: number) {}

  get count(): number {
    return this._count;
  }

  /** Records an append message whose last entry is `inflight`; indexes must increase. */
  add(inflight: Index): void {
    if (this.full()) throw new RaftPanic('cannot add into a full inflights');
    // Allocated on first use: most followers of a healthy leader never fill it.
    this.buffer ??= new Array<Index>(this.size);
    let next = this.start + this._count;
    if (next >= this.size) next -= this.size;
    this.buffer[next] = inflight;
    this._count++;
  }

  /** Frees every inflight message with last index ≤ to (they were acknowledged). */
  freeLE(to: Index): void {
    if (this._count === 0 || !this.buffer || to < this.buffer[this.start]!) return;
    let idx = this.start;
    let i = 0;
    for (; i < this._count; i++) {
      if (to < this.buffer[idx]!) break;
      idx++;
      if (idx >= this.size) idx -= this.size;
    }
    this._count -= i;
    this.start = idx;
    if (this._count === 0) this.start = 0;
  }

  /** Frees the oldest message: a heartbeat response proves the follower is alive, so let one more through. */
  freeFirstOne(): void {
    if (this._count === 0 || !this.buffer) return;
    this.freeLE(this.buffer[this.start]!);
  }

  full(): boolean {
    return this._count === this.size;
  }

  reset(): void {
    this._count = 0;
    this.start = 0;
  }
}
