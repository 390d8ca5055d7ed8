// Leader history (terms, leaders, elections, leaderless gaps) and the
// kill-the-leader experiment with its measured failover time.

import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { FailoverResult, LeaderEvent } from '../../../preload/contract';
import { errorText } from '../lib/format';
import { useBridge } from './bridgeProvider';

/** The console keeps this many leader events; older ones drop off (the services keep their own bounded history). */
export const LEADER_HISTORY = 2000;

export const useLeaderStore = defineStore('leader', () => {
  const events = shallowRef<LeaderEvent[]>([]);
  const loaded = ref(false);
  const loading = ref(false);
  const error = ref('');
  const experimentRunning = ref(false);
  const experiment = shallowRef<FailoverResult | null>(null);
  const experimentError = ref('');
  let unsubscribe: (() => void) | undefined;

  const current = computed(() => {
    for (let i = events.value.length - 1; i >= 0; i--) {
      const e = events.value[i];
      if (e.kind === 'elected' || e.kind === 'changed') return e;
      if (e.kind === 'lost' || e.kind === 'no-leader') return undefined;
    }
    return undefined;
  });
  const elections = computed(() => events.value.filter((e) => e.kind === 'elected' || e.kind === 'changed').length);
  const leaderlessTotalMs = computed(() => events.value.reduce((sum, e) => sum + (e.leaderlessMs ?? 0), 0));

  async function load(): Promise<void> {
    loading.value = true;
    try {
      events.value = (await useBridge().leaderTimeline()).slice(-LEADER_HISTORY);
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
    unsubscribe = useBridge().on('leaderEvent', (e) => {
      events.value = [...events.value, e].slice(-LEADER_HISTORY);
    });
  }

  function disconnect(): void {
    unsubscribe?.();
    unsubscribe = undefined;
  }

  async function killLeader(): Promise<FailoverResult | null> {
    experimentRunning.value = true;
    experimentError.value = '';
    try {
      experiment.value = await useBridge().killLeaderExperiment();
      return experiment.value;
    } catch (err) {
      experimentError.value = errorText(err);
      return null;
    } finally {
      experimentRunning.value = false;
      // The stream should have delivered the election; re-read in case this window missed it.
      void load();
    }
  }

  return { events, loaded, loading, error, current, elections, leaderlessTotalMs, experimentRunning, experiment, experimentError, load, connect, disconnect, killLeader };
});
