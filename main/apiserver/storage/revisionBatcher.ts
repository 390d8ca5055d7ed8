// etcd's current revision for consistent reads, batched as etcd batches
// ReadIndex: a read that arrives while a revision request is in flight cannot
// use its answer (a write acknowledged before the read arrived might be
// missing from it), so it joins the one next request, sent when the in-flight
// one returns. N concurrent LISTs cost two round trips, not N.

export class RevisionBatcher {
  /** The request in flight, and the one queued behind it. */
  private inFlight: Promise<bigint> | undefined;
  private queued: Promise<bigint> | undefined;

  constructor(private readonly fetch: () => Promise<bigint>) {}

  /** A revision at least as new as etcd's when this call was made. */
  current(): Promise<bigint> {
    if (!this.inFlight) return (this.inFlight = this.send());
    this.queued ??= this.inFlight.then(
      () => this.sendQueued(),
      () => this.sendQueued(),
    );
    return this.queued;
  }

  private sendQueued(): Promise<bigint> {
    this.queued = undefined;
    return (this.inFlight = this.send());
  }

  private send(): Promise<bigint> {
    const p = this.fetch();
    const done = () => {
      if (this.inFlight === p) this.inFlight = undefined;
    };
    p.then(done, done);
    return p;
  }
}
