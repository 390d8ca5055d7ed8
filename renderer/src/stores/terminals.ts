// Terminal tabs. Output for each terminal goes to the xterm instance that
// attached for it; output arriving before it attaches (or while its tab is
// being re-created) is buffered, bounded.

import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { TerminalInfo } from '../../../preload/contract';
import { errorText } from '../lib/format';
import { useBridge } from './bridgeProvider';

/** Characters of output kept for a terminal that has no xterm attached yet. */
const MAX_BUFFER = 256 * 1024;

export interface TerminalTab extends TerminalInfo {
  exitCode?: number;
}

export const useTerminalsStore = defineStore('terminals', () => {
  const tabs = ref<TerminalTab[]>([]);
  const activeId = ref<string | null>(null);
  const opening = ref(false);
  const error = ref('');
  const sinks = new Map<string, (data: string) => void>();
  const buffers = new Map<string, string>();
  let unsubscribe: (() => void)[] = [];

  const active = computed(() => tabs.value.find((t) => t.id === activeId.value));

  function onData({ id, data }: { id: string; data: string }): void {
    const sink = sinks.get(id);
    if (sink) sink(data);
    else buffers.set(id, ((buffers.get(id) ?? '') + data).slice(-MAX_BUFFER));
  }

  function onExit({ id, code }: { id: string; code: number }): void {
    tabs.value = tabs.value.map((t) => (t.id === id ? { ...t, exitCode: code } : t));
  }

  function connect(): void {
    if (unsubscribe.length > 0) return;
    const b = useBridge();
    unsubscribe = [b.on('terminalData', onData), b.on('terminalExit', onExit)];
  }

  function disconnect(): void {
    for (const u of unsubscribe) u();
    unsubscribe = [];
  }

  /** The xterm for `id` receives its output from now on (buffered output first). */
  function attach(id: string, sink: (data: string) => void): () => void {
    const pending = buffers.get(id);
    buffers.delete(id);
    if (pending) sink(pending);
    sinks.set(id, sink);
    return () => {
      if (sinks.get(id) === sink) sinks.delete(id);
    };
  }

  async function open(cols: number, rows: number): Promise<TerminalTab | null> {
    opening.value = true;
    error.value = '';
    try {
      const info = await useBridge().openTerminal({ cols, rows });
      tabs.value = [...tabs.value, { ...info }];
      activeId.value = info.id;
      return info;
    } catch (err) {
      error.value = errorText(err);
      return null;
    } finally {
      opening.value = false;
    }
  }

  function input(id: string, data: string): void {
    useBridge().terminalInput({ id, data }).catch((err: unknown) => (error.value = errorText(err)));
  }

  function resize(id: string, cols: number, rows: number): void {
    useBridge().resizeTerminal({ id, cols, rows }).catch((err: unknown) => (error.value = errorText(err)));
  }

  async function close(id: string): Promise<void> {
    const i = tabs.value.findIndex((t) => t.id === id);
    tabs.value = tabs.value.filter((t) => t.id !== id);
    sinks.delete(id);
    buffers.delete(id);
    if (activeId.value === id) activeId.value = tabs.value[Math.min(i, tabs.value.length - 1)]?.id ?? null;
    try {
      await useBridge().closeTerminal({ id });
    } catch (err) {
      error.value = errorText(err);
    }
  }

  return { tabs, activeId, active, opening, error, connect, disconnect, attach, open, input, resize, close, onData, onExit };
});
