// The last N finished request traces (a bounded ring buffer: older traces are
// dropped, never written anywhere), and listeners for live streaming at
// /debug/pilothouse/traces?watch=true.

import type { RequestTrace } from '../../kube/requestTrace';

export const DEFAULT_TRACE_BUFFER_SIZE = 1000;

export class RequestTraceLog {
  private readonly buf: RequestTrace[] = [];
  private next = 0;
  private readonly listeners = new Set<(t: RequestTrace) => void>();

  constructor(readonly capacity: number = DEFAULT_TRACE_BUFFER_SIZE) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`trace buffer size must be a positive integer, got ${capacity}`);
  }

  add(t: RequestTrace): void {
    if (this.buf.length < this.capacity) this.buf.push(t);
    else this.buf[this.next] = t;
    this.next = (this.next + 1) % this.capacity;
    for (const l of this.listeners) l(t);
  }

  /** Oldest first. */
  list(): RequestTrace[] {
    if (this.buf.length < this.capacity) return [...this.buf];
    return [...this.buf.slice(this.next), ...this.buf.slice(0, this.next)];
  }

  subscribe(listener: (t: RequestTrace) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
