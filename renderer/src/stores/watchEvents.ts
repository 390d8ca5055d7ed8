// The live watch-event feed. Events arrive in batches (≤ every 100 ms) and are
// folded into the store once per animation frame. At most WATCH_CAPACITY
// events are kept (a ring; the oldest drop off), and the filtered list the
// view scrolls is maintained incrementally: new events are appended when they
// match, evicted ones trimmed from its front. Neither array is deeply
// reactive — 100,000 proxied objects would cost more than the events.

import { defineStore } from 'pinia';
import { computed, ref, shallowRef, triggerRef } from 'vue';
import type { FeedStatus, WatchEventDetail, WatchEventRecord } from '../../../preload/contract';
import { errorText } from '../lib/format';
import { FrameBatcher } from '../lib/frameBatcher';
import { RingBuffer } from '../lib/ringBuffer';
import { emptyWatchFilter, matchesWatchFilter, type WatchFilter } from '../lib/watchFilter';
import { useBridge } from './bridgeProvider';

export const WATCH_CAPACITY = 100_000;
export const WATCH_TYPES: readonly WatchEventRecord['type'][] = ['PUT', 'DELETE', 'ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'];

/** Index of the first event with seq >= min (events are in seq order). */
export function firstAtOrAfter(events: readonly WatchEventRecord[], min: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events[mid].seq < min) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export const useWatchEventsStore = defineStore('watchEvents', () => {
  const ring = new RingBuffer<WatchEventRecord>(WATCH_CAPACITY);
  /** The filtered events, oldest first. Mutated in place; triggerRef after each change. */
  const visible = shallowRef<WatchEventRecord[]>([]);
  const filter = ref<WatchFilter>(emptyWatchFilter());
  const paused = ref(false);
  const arrivedWhilePaused = ref(0);
  const received = ref(0);
  const kept = ref(0);
  const resources = ref<string[]>([]);
  const namespaces = ref<string[]>([]);
  const loaded = ref(false);
  const loading = ref(false);
  const error = ref('');
  const selectedSeq = ref<number | null>(null);
  const detail = shallowRef<WatchEventDetail | null>(null);
  const detailLoading = ref(false);
  const detailError = ref('');
  /** How often the services' feed started over (seq numbers reset): the list was cleared each time. */
  const feedRestarts = ref(0);
  /** Where the events come from and what the feed cannot watch (skipped resources, an unreachable API); null until known. */
  const status = shallowRef<FeedStatus['watch'] | null>(null);
  let lastSeq = -1;
  let unsubscribe: (() => void) | undefined;
  let unsubscribeStatus: (() => void) | undefined;
  const seenResources = new Set<string>();
  const seenNamespaces = new Set<string>();
  const batcher = new FrameBatcher<WatchEventRecord>((items) => ingest(items));

  const selected = computed(() => {
    const seq = selectedSeq.value;
    if (seq === null) return undefined;
    const arr = visible.value;
    const i = firstAtOrAfter(arr, seq);
    return arr[i]?.seq === seq ? arr[i] : undefined;
  });

  function noteFacets(batch: readonly WatchEventRecord[]): void {
    let grew = false;
    for (const e of batch) {
      if (e.resource && !seenResources.has(e.resource)) {
        seenResources.add(e.resource);
        grew = true;
      }
      if (e.namespace && !seenNamespaces.has(e.namespace)) {
        seenNamespaces.add(e.namespace);
        grew = true;
      }
    }
    if (grew) {
      resources.value = [...seenResources].sort();
      namespaces.value = [...seenNamespaces].sort();
    }
  }

  /**
   * An event at or below the last seq we hold is a duplicate (a load()
   * overlapping the stream) only if we hold that very event; otherwise the
   * services' feed started over (a restore restarts it, and so does a new
   * host) and its seq numbers with it.
   */
  function isRestart(e: WatchEventRecord): boolean {
    if (e.seq > lastSeq) return false;
    const oldest = ring.oldest();
    const held = oldest ? ring.at(e.seq - oldest.seq) : undefined;
    return !(held && held.seq === e.seq && held.key === e.key && held.revision === e.revision);
  }

  /** Folds a batch in now (the stream goes through the frame batcher first). */
  function ingest(batch: readonly WatchEventRecord[]): void {
    if (batch.length > 0 && isRestart(batch[0])) {
      // Old seqs would collide with the new feed's (and their values are gone with the old feed).
      clear();
      lastSeq = -1;
      feedRestarts.value++;
    }
    const fresh = batch.filter((e) => e.seq > lastSeq);
    if (fresh.length === 0) return;
    lastSeq = fresh[fresh.length - 1].seq;
    const evicted = ring.pushAll(fresh);
    received.value += fresh.length;
    kept.value = ring.size;
    noteFacets(fresh);
    if (paused.value) {
      arrivedWhilePaused.value += fresh.length;
      return;
    }
    const arr = visible.value;
    if (evicted > 0) {
      const cut = firstAtOrAfter(arr, ring.oldest()!.seq);
      if (cut > 0) arr.splice(0, cut);
    }
    const f = filter.value;
    for (const e of fresh) if (matchesWatchFilter(e, f)) arr.push(e);
    triggerRef(visible);
  }

  /** Recomputes the filtered list from the ring (filter change, resume). */
  function rebuild(): void {
    const f = filter.value;
    const out: WatchEventRecord[] = [];
    for (let i = 0; i < ring.size; i++) {
      const e = ring.at(i)!;
      if (matchesWatchFilter(e, f)) out.push(e);
    }
    visible.value = out;
  }

  function setFilter(patch: Partial<WatchFilter>): void {
    filter.value = { ...filter.value, ...patch };
    rebuild();
  }

  function clearFilter(): void {
    filter.value = emptyWatchFilter();
    rebuild();
  }

  function pause(): void {
    paused.value = true;
  }

  function resume(): void {
    paused.value = false;
    arrivedWhilePaused.value = 0;
    rebuild();
  }

  /** Forgets everything shown so far (new events keep coming). */
  function clear(): void {
    ring.clear();
    kept.value = 0;
    visible.value = [];
    selectedSeq.value = null;
    detail.value = null;
  }

  async function loadStatus(): Promise<void> {
    try {
      status.value = (await useBridge().feedStatus()).watch;
    } catch {
      // older services without the call: the view shows no status line
    }
  }

  async function load(limit = 5000): Promise<void> {
    loading.value = true;
    void loadStatus();
    try {
      ingest(await useBridge().recentWatchEvents({ limit }));
      loaded.value = true;
      error.value = '';
    } catch (err) {
      error.value = errorText(err);
    } finally {
      loading.value = false;
    }
  }

  function connect(): void {
    if (unsubscribe) return;
    unsubscribe = useBridge().on('watchEvents', (batch) => batcher.add(batch));
    unsubscribeStatus = useBridge().on('feedStatus', (st) => (status.value = st.watch));
  }

  function disconnect(): void {
    unsubscribe?.();
    unsubscribeStatus?.();
    unsubscribe = unsubscribeStatus = undefined;
  }

  async function select(seq: number | null): Promise<void> {
    selectedSeq.value = seq;
    detail.value = null;
    detailError.value = '';
    if (seq === null) return;
    detailLoading.value = true;
    try {
      const d = await useBridge().watchEventDetail({ seq });
      if (selectedSeq.value !== seq) return; // the user moved on
      if (d) detail.value = d;
      else detailError.value = 'The console services no longer hold this event (older than their buffer).';
    } catch (err) {
      if (selectedSeq.value === seq) detailError.value = errorText(err);
    } finally {
      if (selectedSeq.value === seq) detailLoading.value = false;
    }
  }

  return {
    visible, filter, paused, arrivedWhilePaused, received, kept, resources, namespaces, loaded, loading, error,
    selectedSeq, selected, detail, detailLoading, detailError, feedRestarts, status,
    ingest, rebuild, setFilter, clearFilter, pause, resume, clear, load, connect, disconnect, select,
  };
});
