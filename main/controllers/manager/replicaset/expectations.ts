// ControllerExpectations (kube's controller_utils.go): after a sync asks for
// N creations or deletions, the next sync waits until the informer has seen
// them, so a lagging cache never causes double creates. Expectations expire
// after 5 minutes in case a watch event was lost for good.

const TTL_MS = 5 * 60_000;

interface Expect {
  add: number;
  del: number;
  at: number;
}

export class Expectations {
  private readonly m = new Map<string, Expect>();
  constructor(private readonly now: () => number) {}

  satisfied(key: string): boolean {
    const e = this.m.get(key);
    if (!e) return true;
    return (e.add <= 0 && e.del <= 0) || this.now() - e.at > TTL_MS;
  }
  expectCreations(key: string, n: number): void {
    this.m.set(key, { add: n, del: 0, at: this.now() });
  }
  expectDeletions(key: string, n: number): void {
    this.m.set(key, { add: 0, del: n, at: this.now() });
  }
  creationObserved(key: string): void {
    const e = this.m.get(key);
    if (e) e.add--;
  }
  deletionObserved(key: string): void {
    const e = this.m.get(key);
    if (e) e.del--;
  }
  delete(key: string): void {
    this.m.delete(key);
  }
}
