// The watch feeds' memory: a bounded ring of records in seq order (the
// oldest drop off at capacity) whose values are kept within a byte budget —
// past it, the oldest records lose their values first and keep the record.
// Seqs increase but need not be contiguous: two feeds (etcd and the
// Kubernetes API) may draw them from one counter, so the view sees one list.

export interface Held<V> {
  record: { seq: number };
  value?: V;
  prevValue?: V;
}

export class RecordRing<V, S extends Held<V> = Held<V>> {
  private readonly ring: (S | undefined)[];
  private head = 0; // next write position
  private count = 0;
  private valueBytes = 0;
  private valueTail = 0; // ring offset (from the oldest) of the oldest record that may still hold values

  constructor(
    readonly capacity: number,
    private readonly budget: number,
    private readonly bytes: (v: V) => number,
  ) {
    this.ring = new Array<S | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  private held(s: S): number {
    return (s.value === undefined ? 0 : this.bytes(s.value)) + (s.prevValue === undefined ? 0 : this.bytes(s.prevValue));
  }

  push(stored: S): void {
    const evicted = this.count === this.capacity ? this.ring[this.head] : undefined;
    if (evicted) {
      this.valueBytes -= this.held(evicted);
      if (this.valueTail > 0) this.valueTail--;
    }
    this.ring[this.head] = stored;
    this.head = (this.head + 1) % this.capacity;
    this.count = Math.min(this.count + 1, this.capacity);
    this.valueBytes += this.held(stored);
    // Over budget: drop values from the oldest records.
    while (this.valueBytes > this.budget && this.valueTail < this.count - 1) {
      const old = this.at(this.valueTail++)!;
      this.valueBytes -= this.held(old);
      old.value = undefined;
      old.prevValue = undefined;
    }
  }

  /** The i-th record from the oldest. */
  at(i: number): S | undefined {
    if (i < 0 || i >= this.count) return undefined;
    return this.ring[(this.head - this.count + i + this.capacity * 2) % this.capacity];
  }

  find(seq: number): S | undefined {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid)!.record.seq < seq) lo = mid + 1;
      else hi = mid;
    }
    const s = this.at(lo);
    return s?.record.seq === seq ? s : undefined;
  }

  /** The newest n, oldest first. */
  newest(n: number): S[] {
    const k = Math.max(0, Math.min(n, this.count));
    const out: S[] = [];
    for (let i = this.count - k; i < this.count; i++) out.push(this.at(i)!);
    return out;
  }
}
