// When a watcher counts as unresponsive. kube's cacheWatcher (k8s.io/apiserver
// pkg/storage/cacher/cache_watcher.go) gives each watcher an input channel of
// chanSize events (watch_cache.go: at most 100 for a watcher without an
// index); when it is full, the dispatcher waits for room at most the dispatch
// timeout (time_budget.go: a budget of at most 100 ms) and then closes the
// watcher ("Forcing ... watcher close due to unresponsiveness"). Our delivery
// never blocks the producer, so the wait becomes a grace: a backlog above the
// limit may shrink back under it within the timeout (a healthy client
// draining a burst that arrived in one tick); one that stays above is closed.
// What a watcher can hold is therefore its limit plus what arrives within
// the timeout.

/** Events a watcher may owe before the dispatch timeout starts (kube's maxWatchChanSizeWithoutIndex). */
export const WATCHER_BUFFER_SIZE = 100;
/** How long a backlog may stay above its limit (kube's maxBudget for dispatching to a blocked watcher). */
export const DISPATCH_TIMEOUT_MS = 100;

export class BacklogLimit {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly limit: number,
    private readonly timeoutMs: number,
    private readonly onUnresponsive: () => void,
  ) {}

  /** After every change of the backlog: above the limit starts the timeout (once); back at or under it cancels it. */
  update(backlog: number): void {
    if (backlog <= this.limit) {
      this.dispose();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.onUnresponsive();
    }, this.timeoutMs);
  }

  dispose(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * The line kube's cacheWatcher logs when it closes a watcher this way: `what`
 * is the group resource ("configmaps", "deployments.apps"), `identifier`
 * names the watch (cacher.go: key and selectors), `input` the events it still
 * owed, `result` those written to the response and not yet drained.
 */
export function unresponsiveLine(what: string, identifier: string, input: number, result: number): string {
  return `Forcing ${what} watcher close due to unresponsiveness: ${identifier}. len(c.input) = ${input}, len(c.result) = ${result}, graceful = false`;
}
