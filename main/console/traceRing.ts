// The Admission log's memory in the services: the last `capacity` requests
// (each id once: a reconnect or a second audit stage repeats one), sent to
// the renderer in batches of at most one `traces` event per BATCH_MS.

import type { EventSink, TraceRecord } from '../../preload/contract';

const BATCH_MS = 100;

export class TraceRing {
  private readonly ring: TraceRecord[] = [];
  private readonly seen = new Set<string>();
  private pending: TraceRecord[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    private readonly capacity: number,
    private readonly events: EventSink,
  ) {}

  has(id: string): boolean {
    return this.seen.has(id);
  }

  /** Keeps and sends record unless its id is held already. */
  add(record: TraceRecord): void {
    if (this.disposed || this.seen.has(record.id)) return;
    this.seen.add(record.id);
    this.ring.push(record);
    if (this.ring.length > this.capacity) {
      const dropped = this.ring.splice(0, this.ring.length - this.capacity);
      for (const d of dropped) this.seen.delete(d.id);
    }
    this.pending.push(record);
    this.flushTimer ??= setTimeout(() => this.flush(), BATCH_MS);
  }

  private flush(): void {
    this.flushTimer = undefined;
    if (this.disposed || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.events.emit('traces', batch);
  }

  recent(limit: number): TraceRecord[] {
    return this.ring.slice(Math.max(0, this.ring.length - limit));
  }

  dispose(): void {
    this.disposed = true;
    if (this.flushTimer) clearTimeout(this.flushTimer);
  }
}
