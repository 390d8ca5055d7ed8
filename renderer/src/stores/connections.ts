// The cluster switcher's state: the lab and the saved connections, which one
// is shown, switching, and the Add-connection dialog's saves and imports.
// A switch (from this tab or another) arrives as clusterSwitched; the shell
// then reloads the page, so every store starts over on the new cluster.

import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { BridgeCalls, ConnectionDraft, ConnectionEntry, ConnectionImport, ConnectionProfile } from '../../../preload/contract';
import { errorText } from '../lib/format';
import { useBridge } from './bridgeProvider';

export type ImportSource = Parameters<BridgeCalls['importConnections']>[0]['from'];

export const useConnectionsStore = defineStore('connections', () => {
  const connections = shallowRef<ConnectionEntry[]>([]);
  const current = ref('');
  const switching = ref('');
  const error = ref('');
  let unsubscribe: (() => void) | undefined;

  async function load(): Promise<void> {
    try {
      const list = await useBridge().listConnections();
      connections.value = list.connections;
      current.value = list.current;
      error.value = '';
    } catch (err) {
      error.value = errorText(err);
    }
  }

  /** Subscribes once; `onSwitched` runs when the console shows another cluster. */
  function connect(onSwitched: () => void): void {
    if (unsubscribe) return;
    unsubscribe = useBridge().on('clusterSwitched', (c) => {
      current.value = c.id;
      onSwitched();
    });
  }

  async function switchTo(id: string): Promise<boolean> {
    if (id === current.value || switching.value) return false;
    switching.value = id;
    error.value = '';
    try {
      const c = await useBridge().switchCluster({ id });
      current.value = c.id;
      return true;
    } catch (err) {
      error.value = errorText(err);
      return false;
    } finally {
      switching.value = '';
    }
  }

  /** Restores the lab from a snapshot of the attached cluster shown and switches to it; throws the service's reason. */
  async function cloneIntoLab(snapshot: string): Promise<void> {
    switching.value = 'lab';
    error.value = '';
    try {
      const c = await useBridge().cloneIntoLab({ snapshot });
      current.value = c.id;
    } finally {
      switching.value = '';
    }
  }

  /** Saves and lists again; throws the service's reason for the dialog to show. */
  async function save(draft: ConnectionDraft & { id?: string }): Promise<ConnectionProfile> {
    const saved = await useBridge().saveConnection(draft);
    await load();
    return saved;
  }

  async function remove(id: string): Promise<void> {
    await useBridge().deleteConnection({ id });
    await load();
  }

  /** Drafts from a source (throws the service's reason). */
  function importFrom(from: ImportSource, path?: string): Promise<ConnectionImport> {
    return useBridge().importConnections({ from, ...(path ? { path } : {}) });
  }

  return { connections, current, switching, error, load, connect, switchTo, cloneIntoLab, save, remove, importFrom };
});
