// A fixed-capacity ring: the console keeps the newest N watch events (and
// traces, log lines) so memory stays bounded however long it runs. Pushing
// past capacity evicts the oldest entries; callers learn how many went so
// derived views (a filtered list) can drop theirs too.

export class RingBuffer<T> {
  private readonly items: (T | undefined)[];
  private head = 0; // index of the oldest item
  private count = 0;
  /** Items pushed over the buffer's lifetime (evicted ones included). */
  totalPushed = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`ring capacity must be a positive integer, got ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Appends in order; returns how many old items were evicted. */
  push(...values: T[]): number {
    return this.pushAll(values);
  }

  pushAll(values: readonly T[]): number {
    let evicted = 0;
    for (const v of values) {
      const tail = (this.head + this.count) % this.capacity;
      this.items[tail] = v;
      if (this.count < this.capacity) this.count++;
      else {
        this.head = (this.head + 1) % this.capacity;
        evicted++;
      }
    }
    this.totalPushed += values.length;
    return evicted;
  }

  /** i = 0 is the oldest item. */
  at(i: number): T | undefined {
    if (i < 0 || i >= this.count) return undefined;
    return this.items[(this.head + i) % this.capacity];
  }

  oldest(): T | undefined {
    return this.at(0);
  }

  newest(): T | undefined {
    return this.at(this.count - 1);
  }

  toArray(): T[] {
    const out: T[] = new Array<T>(this.count);
    for (let i = 0; i < this.count; i++) out[i] = this.items[(this.head + i) % this.capacity] as T;
    return out;
  }

  clear(): void {
    this.items.fill(undefined);
    this.head = 0;
    this.count = 0;
  }
}
