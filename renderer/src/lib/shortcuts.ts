// Keyboard sequences ("g o", "g m", "1" … "8"): a tiny matcher fed one key at
// a time. Pure, with time passed in, so it is tested without a DOM.

export interface Binding<A> {
  /** Space-separated keys, e.g. "g o" or "?". */
  keys: string;
  action: A;
}

export class SequenceMatcher<A> {
  private pending: string[] = [];
  private lastAt = 0;
  private readonly seqs: { keys: string[]; action: A }[];

  constructor(bindings: readonly Binding<A>[], private readonly timeoutMs = 1200) {
    this.seqs = bindings.map((b) => ({ keys: b.keys.split(' '), action: b.action }));
  }

  /** Feed one key (KeyboardEvent.key); returns the action when a sequence completes. */
  feed(key: string, now: number): A | undefined {
    if (now - this.lastAt > this.timeoutMs) this.pending = [];
    this.lastAt = now;
    this.pending.push(key);
    for (;;) {
      const exact = this.seqs.find((s) => sameKeys(s.keys, this.pending));
      if (exact) {
        this.pending = [];
        return exact.action;
      }
      if (this.seqs.some((s) => isPrefix(this.pending, s.keys))) return undefined;
      // No sequence continues this way: retry from the latest key alone ("g x g o").
      if (this.pending.length <= 1) {
        this.pending = [];
        return undefined;
      }
      this.pending = this.pending.slice(-1);
    }
  }

  /** True while a sequence is half typed (the UI shows it). */
  get partial(): string {
    return this.pending.join(' ');
  }

  reset(): void {
    this.pending = [];
  }
}

function sameKeys(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

function isPrefix(prefix: string[], of: string[]): boolean {
  return prefix.length < of.length && prefix.every((k, i) => k === of[i]);
}
