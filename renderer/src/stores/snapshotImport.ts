// Importing a snapshot file from anywhere: Electron picks it with a native
// dialog (chooseSnapshotFile), the web host — which has no dialog — takes a
// typed path; the services verify the file and copy it into DIR/snapshots.
// The imported file is then offered to the guided restore.

import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { SnapshotInfo } from '../../../preload/contract';
import { errorText } from '../lib/format';
import { useBridge } from './bridgeProvider';
import { useSnapshotsStore } from './snapshots';

export const useSnapshotImportStore = defineStore('snapshotImport', () => {
  const path = ref('');
  const importing = ref(false);
  const error = ref('');
  /** The last file imported (the view offers to boot the cluster from it). */
  const imported = shallowRef<SnapshotInfo | null>(null);
  /** Only the Electron host has a native dialog; the web host takes a typed path. */
  const hasDialog = ref(false);

  async function detectHost(): Promise<void> {
    try {
      hasDialog.value = (await useBridge().version()).runtime === 'electron';
    } catch {
      hasDialog.value = false;
    }
  }

  /** Electron's dialog; on a host without one, leaves the typed path to the user. */
  async function choose(): Promise<void> {
    error.value = '';
    try {
      const r = await useBridge().chooseSnapshotFile();
      hasDialog.value = r.dialog;
      if (r.path) await importFile(r.path);
    } catch (err) {
      error.value = errorText(err);
    }
  }

  async function importFile(from = path.value): Promise<SnapshotInfo | null> {
    importing.value = true;
    error.value = '';
    imported.value = null;
    try {
      const info = await useBridge().importSnapshot({ path: from });
      imported.value = info;
      path.value = '';
      void useSnapshotsStore().refresh();
      return info;
    } catch (err) {
      error.value = errorText(err);
      return null;
    } finally {
      importing.value = false;
    }
  }

  function dismiss(): void {
    imported.value = null;
    error.value = '';
  }

  return { path, importing, error, imported, hasDialog, detectHost, choose, importFile, dismiss };
});
