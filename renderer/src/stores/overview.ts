// Cluster overview: topology, process states, members, the one-line health,
// and the first-start progress steps. Kept fresh by the overview and
// startupProgress streams; load() fetches the current state once.

import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { BridgeCalls, ClusterOverview, StartupStep } from '../../../preload/contract';
import { errorText } from '../lib/format';
import { useBridge } from './bridgeProvider';

export const useOverviewStore = defineStore('overview', () => {
  const overview = shallowRef<ClusterOverview | null>(null);
  const steps = shallowRef<StartupStep[]>([]);
  const version = shallowRef<ReturnType<BridgeCalls['version']> | null>(null);
  const loading = ref(false);
  const error = ref('');
  let unsubscribe: (() => void)[] = [];

  const starting = computed(() => overview.value?.health === 'starting' || steps.value.some((s) => s.state === 'running' || s.state === 'pending'));
  const stepsDone = computed(() => steps.value.filter((s) => s.state === 'done').length);
  /** Actions that change the cluster are allowed (true until the overview says otherwise: the lab). */
  const writable = computed(() => overview.value?.connection?.writable ?? true);
  /** Why such an action is disabled, for its tooltip ('' when writable). */
  const readOnlyHint = computed(() => (writable.value ? '' : `Read-only: ${overview.value?.connection?.name ?? 'this connection'} is attached read-only. Save the connection as writable to allow changes.`));

  async function load(): Promise<void> {
    loading.value = true;
    error.value = '';
    try {
      const b = useBridge();
      const [o, s, v] = await Promise.all([b.overview(), b.startupProgress(), b.version()]);
      overview.value = o;
      steps.value = s;
      version.value = v;
    } catch (err) {
      error.value = errorText(err);
    } finally {
      loading.value = false;
    }
  }

  /** Subscribes to the streams once; later calls are no-ops. */
  function connect(): void {
    if (unsubscribe.length > 0) return;
    const b = useBridge();
    unsubscribe = [
      b.on('overview', (o) => {
        overview.value = o;
        error.value = '';
      }),
      b.on('startupProgress', (s) => {
        steps.value = s;
      }),
    ];
  }

  function disconnect(): void {
    for (const u of unsubscribe) u();
    unsubscribe = [];
  }

  /** The pid of a component ('m1', 'apiserver'), for command previews. */
  function pidOf(id: string): number | undefined {
    return overview.value?.components.find((c) => c.id === id)?.pid;
  }

  return { overview, steps, version, loading, error, starting, stepsDone, writable, readOnlyHint, load, connect, disconnect, pidOf };
});
