// The registry between an RPC and the apply loop (etcd's pkg/wait): a
// proposer registers its request id and awaits; whichever code applies the
// entry with that id triggers it. Members that did not propose an entry find
// no waiter and just apply it.
//
// Deadlines are checked by one shared timer calling expire(), not a timer per
// request. Every waiter gets the same timeout, so insertion order is deadline
// order and expire() stops at the first waiter that is still in time.

interface Waiter<T> {
  resolve(value: T): void;
  reject(err: Error): void;
  deadline: number;
  /** When the request was registered; the timeout error depends on it. */
  startedAt: number;
}

export class WaitRegistry<T> {
  private readonly waiters = new Map<bigint, Waiter<T>>();

  register(id: bigint, startedAt: number, deadline: number): Promise<T> {
    if (this.waiters.has(id)) throw new Error(`wait: duplicate id ${id.toString(16)}`);
    return new Promise<T>((resolve, reject) => {
      this.waiters.set(id, { resolve, reject, deadline, startedAt });
    });
  }

  isRegistered(id: bigint): boolean {
    return this.waiters.has(id);
  }

  /** Returns false when nobody waits for `id` (another member proposed it, or it timed out). */
  trigger(id: bigint, value: T): boolean {
    const w = this.waiters.get(id);
    if (!w) return false;
    this.waiters.delete(id);
    w.resolve(value);
    return true;
  }

  fail(id: bigint, err: Error): boolean {
    const w = this.waiters.get(id);
    if (!w) return false;
    this.waiters.delete(id);
    w.reject(err);
    return true;
  }

  /** Rejects every waiter whose deadline is ≤ now, with the error errorFor builds. Returns how many. */
  expire(now: number, errorFor: (startedAt: number) => Error): number {
    let n = 0;
    for (const [id, w] of this.waiters) {
      if (w.deadline > now) break;
      this.waiters.delete(id);
      w.reject(errorFor(w.startedAt));
      n++;
    }
    return n;
  }

  failAll(err: Error): void {
    const all = [...this.waiters.values()];
    this.waiters.clear();
    for (const w of all) w.reject(err);
  }

  get size(): number {
    return this.waiters.size;
  }
}
