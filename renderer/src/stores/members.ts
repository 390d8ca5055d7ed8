// Members: one status probe per member (refreshed on a timer while the view
// is open) and the member actions with their results.

import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ActionResult, MemberAction, MemberStatus } from '../../../preload/contract';
import { errorText } from '../lib/format';
import { useBridge } from './bridgeProvider';

export interface ActionOutcome {
  member: string;
  action: MemberAction;
  result: ActionResult;
  at: string;
}

export const useMembersStore = defineStore('members', () => {
  const members = shallowRef<MemberStatus[]>([]);
  const loaded = ref(false);
  const loading = ref(false);
  const error = ref('');
  /** "m1:kill" while that action runs. */
  const running = ref<string[]>([]);
  /** The latest outcome per member. */
  const outcomes = ref<Record<string, ActionOutcome>>({});
  let timer: ReturnType<typeof setInterval> | undefined;
  let inFlight = false;

  async function refresh(): Promise<void> {
    if (inFlight) return; // a slow probe must not pile up behind the timer
    inFlight = true;
    loading.value = true;
    try {
      members.value = await useBridge().members();
      loaded.value = true;
      error.value = '';
    } catch (err) {
      error.value = errorText(err);
    } finally {
      inFlight = false;
      loading.value = false;
    }
  }

  function startPolling(intervalMs = 2000): void {
    stopPolling();
    void refresh();
    timer = setInterval(() => void refresh(), intervalMs);
  }

  function stopPolling(): void {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
  }

  function isRunning(member: string, action: MemberAction): boolean {
    return running.value.includes(`${member}:${action}`);
  }

  async function act(member: string, action: MemberAction): Promise<ActionResult> {
    const key = `${member}:${action}`;
    running.value = [...running.value, key];
    let result: ActionResult;
    try {
      result = await useBridge().memberAction({ member, action });
    } catch (err) {
      result = { ok: false, message: errorText(err), command: '' };
    } finally {
      running.value = running.value.filter((k) => k !== key);
    }
    outcomes.value = { ...outcomes.value, [member]: { member, action, result, at: new Date().toISOString() } };
    await refresh();
    return result;
  }

  return { members, loaded, loading, error, running, outcomes, refresh, startPolling, stopPolling, isRunning, act };
});
