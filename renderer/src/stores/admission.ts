// The admission log: request traces from the API server (who, what, which
// stage decided, how long each stage took). The newest TRACE_CAPACITY are kept.

import { defineStore } from 'pinia';
import { computed, ref, shallowRef, triggerRef } from 'vue';
import type { FeedStatus, TraceRecord } from '../../../preload/contract';
import { errorText } from '../lib/format';
import { FrameBatcher } from '../lib/frameBatcher';

import { useBridge } from './bridgeProvider';

export const TRACE_CAPACITY = 5000;

export interface TraceFilter {
  deniedOnly: boolean;
  /** Hide the health probes (/readyz, /livez, /healthz) the supervisor sends every second. */
  hideProbes: boolean;
  user: string;
  stage: string;
}

const PROBE_PATH = /^\/(readyz|livez|healthz)(\/|\?|$)/;

export function matchesTraceFilter(t: TraceRecord, f: TraceFilter): boolean {
  if (f.deniedOnly && t.decision !== 'denied') return false;
  if (f.hideProbes && PROBE_PATH.test(t.path)) return false;
  if (f.user && t.user !== f.user) return false;
  if (f.stage && !t.stages.some((s) => s.stage === f.stage)) return false;
  return true;
}

export const useAdmissionStore = defineStore('admission', () => {
  /** Oldest first, at most TRACE_CAPACITY. */
  const traces = shallowRef<TraceRecord[]>([]);
  const filter = ref<TraceFilter>({ deniedOnly: false, hideProbes: true, user: '', stage: '' });
  const loaded = ref(false);
  const loading = ref(false);
  const error = ref('');
  /** Where the requests come from (traces, an audit log, nothing) and why nothing; null until known. */
  const status = shallowRef<FeedStatus['admission'] | null>(null);
  const seen = new Set<string>();
  let unsubscribe: (() => void) | undefined;
  let unsubscribeStatus: (() => void) | undefined;
  const batcher = new FrameBatcher<TraceRecord>((items) => ingest(items));

  const filtered = computed(() => {
    const f = filter.value;
    // Newest first: the latest request is what an operator just did.
    const out: TraceRecord[] = [];
    const arr = traces.value;
    for (let i = arr.length - 1; i >= 0; i--) if (matchesTraceFilter(arr[i], f)) out.push(arr[i]);
    return out;
  });
  const users = computed(() => [...new Set(traces.value.map((t) => t.user).filter((u): u is string => !!u))].sort());
  const stages = computed(() => [...new Set(traces.value.flatMap((t) => t.stages.map((s) => s.stage)))].sort());
  const deniedCount = computed(() => traces.value.filter((t) => t.decision === 'denied').length);

  function ingest(batch: readonly TraceRecord[]): void {
    const fresh = batch.filter((t) => !seen.has(t.id));
    if (fresh.length === 0) return;
    const arr = traces.value;
    for (const t of fresh) {
      seen.add(t.id);
      arr.push(t);
    }
    if (arr.length > TRACE_CAPACITY) {
      for (const old of arr.splice(0, arr.length - TRACE_CAPACITY)) seen.delete(old.id);
    }
    triggerRef(traces);
  }

  async function loadStatus(): Promise<void> {
    try {
      status.value = (await useBridge().feedStatus()).admission;
    } catch {
      // older services without the call: the view shows no status line
    }
  }

  async function load(limit = 1000): Promise<void> {
    loading.value = true;
    void loadStatus();
    try {
      ingest(await useBridge().recentTraces({ limit }));
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
    unsubscribe = useBridge().on('traces', (batch) => batcher.add(batch));
    unsubscribeStatus = useBridge().on('feedStatus', (st) => (status.value = st.admission));
  }

  function disconnect(): void {
    unsubscribe?.();
    unsubscribeStatus?.();
    unsubscribe = unsubscribeStatus = undefined;
  }

  function setFilter(patch: Partial<TraceFilter>): void {
    filter.value = { ...filter.value, ...patch };
  }

  return { traces, filter, filtered, users, stages, deniedCount, loaded, loading, error, status, ingest, load, connect, disconnect, setFilter };
});
