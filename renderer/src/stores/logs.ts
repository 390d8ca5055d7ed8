// Per-component logs: history from `logs`, live lines from the logLines
// stream, a search (sent to the services for history, applied here to live
// lines), newest LOG_CAPACITY lines kept.

import { defineStore } from 'pinia';
import { ref, shallowRef, triggerRef } from 'vue';
import type { LogLine } from '../../../preload/contract';
import { errorText } from '../lib/format';
import { FrameBatcher } from '../lib/frameBatcher';
import { useBridge } from './bridgeProvider';

export const LOG_CAPACITY = 5000;

export function matchesLogSearch(line: LogLine, search: string): boolean {
  return search === '' || line.text.toLowerCase().includes(search.toLowerCase());
}

export const useLogsStore = defineStore('logs', () => {
  const components = ref<string[]>([]);
  const component = ref('');
  const search = ref('');
  const lines = shallowRef<LogLine[]>([]);
  const follow = ref(true);
  const loading = ref(false);
  const loaded = ref(false);
  const error = ref('');
  let lastSeq = -1;
  let generation = 0;
  let unsubscribe: (() => void) | undefined;
  const batcher = new FrameBatcher<LogLine>((items) => ingest(items));

  function ingest(batch: readonly LogLine[]): void {
    const arr = lines.value;
    let added = false;
    for (const l of batch) {
      if (l.component !== component.value || l.seq <= lastSeq || !matchesLogSearch(l, search.value)) continue;
      arr.push(l);
      lastSeq = l.seq;
      added = true;
    }
    if (!added) return;
    if (arr.length > LOG_CAPACITY) arr.splice(0, arr.length - LOG_CAPACITY);
    triggerRef(lines);
  }

  async function loadComponents(): Promise<void> {
    try {
      components.value = await useBridge().logComponents();
      if (!component.value && components.value.length > 0) component.value = components.value[0];
      error.value = '';
    } catch (err) {
      error.value = errorText(err);
    }
  }

  /** (Re)loads history for the selected component and search. */
  async function load(): Promise<void> {
    if (!component.value) return;
    const gen = ++generation;
    loading.value = true;
    try {
      const got = await useBridge().logs({ component: component.value, search: search.value || undefined, limit: 2000 });
      if (gen !== generation) return; // a newer selection won
      lines.value = got.slice(-LOG_CAPACITY);
      lastSeq = got.length > 0 ? got[got.length - 1].seq : -1;
      loaded.value = true;
      error.value = '';
    } catch (err) {
      if (gen === generation) error.value = errorText(err);
    } finally {
      if (gen === generation) loading.value = false;
    }
  }

  function select(c: string): Promise<void> {
    component.value = c;
    lines.value = [];
    lastSeq = -1;
    return load();
  }

  function setSearch(s: string): Promise<void> {
    search.value = s;
    return load();
  }

  function connect(): void {
    if (unsubscribe) return;
    unsubscribe = useBridge().on('logLines', (batch) => batcher.add(batch));
  }

  function disconnect(): void {
    unsubscribe?.();
    unsubscribe = undefined;
  }

  return { components, component, search, lines, follow, loading, loaded, error, ingest, loadComponents, load, select, setSearch, connect, disconnect };
});
