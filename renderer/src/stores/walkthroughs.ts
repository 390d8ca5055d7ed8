// Walkthroughs: what can be started, every run (live ones updated from the
// walkthroughRun stream, newest first), the run the view shows, the actions
// (pause, resume, cancel, retry, confirm) and a run's Markdown report.

import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { UpgradeRequest, WalkthroughAction, WalkthroughKind, WalkthroughReport, WalkthroughRun } from '../../../preload/contract';
import { errorText } from '../lib/format';
import { useBridge } from './bridgeProvider';

export const ENDED_STATES: readonly WalkthroughRun['state'][] = ['succeeded', 'failed', 'cancelled'];

/** Puts one run's latest version into the list, newest run first. */
export function mergeRun(runs: readonly WalkthroughRun[], run: WalkthroughRun): WalkthroughRun[] {
  const out = runs.filter((r) => r.id !== run.id);
  out.push(run);
  return out.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.id.localeCompare(a.id));
}

/** Which actions a run in this state offers. */
export function actionsFor(run: WalkthroughRun): Record<WalkthroughAction, boolean> {
  return {
    pause: run.state === 'running',
    resume: run.state === 'paused',
    cancel: run.state === 'running' || run.state === 'waiting' || run.state === 'paused' || run.state === 'failed',
    retry: run.state === 'failed' && run.steps.some((s) => s.state === 'failed'),
    confirm: run.state === 'waiting',
  };
}

/** The step a waiting run asks to confirm: the first one not yet done. */
export function gatedStep(run: WalkthroughRun) {
  if (run.state !== 'waiting') return undefined;
  return run.steps.find((s) => s.state === 'pending' || s.state === 'paused');
}

/** 0–100 for a step's progress bar; undefined when the total is not known. */
export function stepPercent(p: { done: number; total?: number } | undefined): number | undefined {
  if (!p || !p.total || p.total <= 0) return undefined;
  return Math.max(0, Math.min(100, Math.floor((p.done / p.total) * 100)));
}

export const useWalkthroughsStore = defineStore('walkthroughs', () => {
  const kinds = shallowRef<WalkthroughKind[]>([]);
  const runs = shallowRef<WalkthroughRun[]>([]);
  const loaded = ref(false);
  const loading = ref(false);
  const error = ref('');
  const actionError = ref('');
  const selectedId = ref<string | null>(null);
  const starting = ref<string | null>(null);
  const report = shallowRef<WalkthroughReport | null>(null);
  let unsubscribe: (() => void) | undefined;

  const selected = computed(() => runs.value.find((r) => r.id === selectedId.value) ?? runs.value.find((r) => !ENDED_STATES.includes(r.state)) ?? null);

  async function load(): Promise<void> {
    loading.value = true;
    try {
      const b = useBridge();
      const [k, list] = await Promise.all([b.walkthroughKinds(), b.listWalkthroughs()]);
      kinds.value = k;
      // a change that streamed in during the call is at least as new as the listed one
      let merged = list.slice();
      for (const r of runs.value) if (!merged.some((m) => m.id === r.id)) merged = mergeRun(merged, r);
      runs.value = merged.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.id.localeCompare(a.id));
      loaded.value = true;
      error.value = '';
    } catch (err) {
      error.value = errorText(err);
    } finally {
      loading.value = false;
    }
  }

  function onRun(run: WalkthroughRun): void {
    runs.value = mergeRun(runs.value, run);
  }

  function connect(): void {
    if (unsubscribe) return;
    unsubscribe = useBridge().on('walkthroughRun', onRun);
  }

  function disconnect(): void {
    unsubscribe?.();
    unsubscribe = undefined;
  }

  function select(id: string | null): void {
    selectedId.value = id;
  }

  /** Starts a run and shows it; undefined (with actionError set) when the console refused. */
  async function start(kind: string, snapshot?: string, upgrade?: UpgradeRequest): Promise<WalkthroughRun | undefined> {
    actionError.value = '';
    starting.value = kind;
    try {
      const run = await useBridge().startWalkthrough({ kind, ...(snapshot && { snapshot }), ...(upgrade && { upgrade }) });
      // the stream may have overtaken the reply with a newer version of the run
      if (!runs.value.some((r) => r.id === run.id)) onRun(run);
      selectedId.value = run.id;
      return run;
    } catch (err) {
      actionError.value = errorText(err);
      return undefined;
    } finally {
      starting.value = null;
    }
  }

  async function act(id: string, action: WalkthroughAction): Promise<void> {
    actionError.value = '';
    try {
      // the reply is the run as the call left it; the change it causes (cancelled,
      // paused, the next step) arrives on the stream and may come before the reply
      await useBridge().walkthroughAction({ id, action });
    } catch (err) {
      actionError.value = errorText(err);
    }
  }

  async function openReport(id: string): Promise<void> {
    actionError.value = '';
    try {
      report.value = await useBridge().walkthroughReport({ id });
    } catch (err) {
      actionError.value = errorText(err);
    }
  }

  function closeReport(): void {
    report.value = null;
  }

  return {
    kinds, runs, loaded, loading, error, actionError, selectedId, selected, starting, report,
    load, connect, disconnect, onRun, select, start, act, openReport, closeReport,
  };
});
