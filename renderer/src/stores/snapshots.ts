// Snapshots: list, take (progress from the snapshotProgress stream, cancel),
// verify, delete, restore (progress steps from restoreProgress); re-read when
// a walkthrough ends (a backup adds a file, a drill records its verdict).

import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { BackupScheduleInfo, RestoreProgress, SnapshotInfo, SnapshotProgress, WalkthroughRun } from '../../../preload/contract';
import { errorText } from '../lib/format';
import { useBridge } from './bridgeProvider';

/** Folds one restore progress message into the step list (same step name → updated in place). */
export function mergeRestoreStep(steps: readonly RestoreProgress[], p: RestoreProgress): RestoreProgress[] {
  const i = steps.findIndex((s) => s.step === p.step);
  if (i < 0) return [...steps, p];
  const out = steps.slice();
  out[i] = p;
  return out;
}

export const useSnapshotsStore = defineStore('snapshots', () => {
  const snapshots = shallowRef<SnapshotInfo[]>([]);
  const loaded = ref(false);
  const loading = ref(false);
  const error = ref('');
  const job = shallowRef<SnapshotProgress | null>(null);
  const takeError = ref('');
  const busy = ref<Record<string, 'verify' | 'delete' | 'restore'>>({});
  const restoreSteps = shallowRef<RestoreProgress[]>([]);
  const restoring = ref<string | null>(null);
  /** The snapshot of the latest restore (kept after it finishes, for the result line). */
  const restoredFrom = ref<string | null>(null);
  const restoreError = ref('');
  const schedule = shallowRef<BackupScheduleInfo | null>(null);
  const scheduleError = ref('');
  let unsubscribe: (() => void)[] = [];

  const percent = computed(() => {
    const j = job.value;
    if (!j) return 0;
    if (j.state === 'done') return 100;
    if (!j.totalBytes) return 0;
    return Math.min(100, Math.round((j.bytes / j.totalBytes) * 100));
  });
  const restoreDone = computed(() => restoreSteps.value.find((s) => s.state === 'done' && s.clusterId !== undefined));
  const restoreFailed = computed(() => restoreSteps.value.find((s) => s.state === 'failed'));

  async function refresh(): Promise<void> {
    loading.value = true;
    try {
      // Newest first.
      snapshots.value = (await useBridge().listSnapshots()).slice().sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      loaded.value = true;
      error.value = '';
    } catch (err) {
      error.value = errorText(err);
    } finally {
      loading.value = false;
    }
  }

  function onProgress(p: SnapshotProgress): void {
    if (job.value && job.value.jobId !== p.jobId) return; // another window's job
    job.value = p;
    if (p.state === 'failed') takeError.value = p.error ?? 'snapshot failed';
    if (p.state !== 'running') void refresh();
  }

  function onRestore(p: RestoreProgress): void {
    restoreSteps.value = mergeRestoreStep(restoreSteps.value, p);
    if (p.state === 'failed') {
      restoreError.value = p.detail ?? `${p.step} failed`;
      restoring.value = null;
    }
    if (p.state === 'done' && p.clusterId !== undefined) {
      restoring.value = null;
      void refresh();
    }
  }

  /** A backup adds a file, a drill records its verdict in the metadata: re-read once each run ends. */
  const runStates = new Map<string, string>();
  function onWalkthrough(run: WalkthroughRun): void {
    const before = runStates.get(run.id);
    runStates.set(run.id, run.state);
    if (before !== run.state && ['succeeded', 'failed', 'cancelled'].includes(run.state)) {
      void refresh();
      if (run.params.source === 'schedule') void loadSchedule();
    }
  }

  async function loadSchedule(): Promise<void> {
    try {
      schedule.value = await useBridge().backupSchedule();
      scheduleError.value = '';
    } catch (err) {
      scheduleError.value = errorText(err);
    }
  }

  /** Saves the schedule; false (with scheduleError set) when the console refused it. */
  async function saveSchedule(next: { enabled: boolean; cron: string; keep: number }): Promise<boolean> {
    try {
      schedule.value = await useBridge().setBackupSchedule(next);
      scheduleError.value = '';
      return true;
    } catch (err) {
      scheduleError.value = errorText(err);
      return false;
    }
  }

  function connect(): void {
    if (unsubscribe.length > 0) return;
    const b = useBridge();
    unsubscribe = [b.on('snapshotProgress', onProgress), b.on('restoreProgress', onRestore), b.on('walkthroughRun', onWalkthrough)];
  }

  function disconnect(): void {
    for (const u of unsubscribe) u();
    unsubscribe = [];
  }

  async function take(): Promise<void> {
    takeError.value = '';
    try {
      const { jobId } = await useBridge().takeSnapshot();
      // Progress may have raced ahead of the reply: keep it if it is for this job.
      if (!job.value || job.value.jobId !== jobId) job.value = { jobId, bytes: 0, state: 'running' };
    } catch (err) {
      takeError.value = errorText(err);
    }
  }

  async function cancel(): Promise<void> {
    const j = job.value;
    if (!j || j.state !== 'running') return;
    try {
      await useBridge().cancelSnapshot({ jobId: j.jobId });
    } catch (err) {
      takeError.value = errorText(err);
    }
  }

  function setBusy(name: string, what: 'verify' | 'delete' | 'restore' | null): void {
    const next = { ...busy.value };
    if (what) next[name] = what;
    else delete next[name];
    busy.value = next;
  }

  async function verify(name: string): Promise<SnapshotInfo | null> {
    setBusy(name, 'verify');
    try {
      const info = await useBridge().verifySnapshot({ name });
      snapshots.value = snapshots.value.map((s) => (s.name === name ? info : s));
      return info;
    } catch (err) {
      error.value = errorText(err);
      return null;
    } finally {
      setBusy(name, null);
    }
  }

  async function remove(name: string): Promise<void> {
    setBusy(name, 'delete');
    try {
      await useBridge().deleteSnapshot({ name });
      await refresh();
    } catch (err) {
      error.value = errorText(err);
    } finally {
      setBusy(name, null);
    }
  }

  async function restore(name: string): Promise<void> {
    restoreSteps.value = [];
    restoreError.value = '';
    restoring.value = name;
    restoredFrom.value = name;
    try {
      const { started } = await useBridge().restoreSnapshot({ name });
      if (!started) {
        restoreError.value = 'The services did not start the restore (another restore running?).';
        restoring.value = null;
      }
    } catch (err) {
      restoreError.value = errorText(err);
      restoring.value = null;
    }
  }

  return {
    snapshots, loaded, loading, error, job, takeError, percent, busy, restoreSteps, restoring, restoredFrom, restoreError, restoreDone, restoreFailed,
    schedule, scheduleError, loadSchedule, saveSchedule,
    refresh, connect, disconnect, take, cancel, verify, remove, restore, onProgress, onRestore, onWalkthrough,
  };
});
