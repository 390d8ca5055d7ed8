// A typed in-memory Bridge for store tests: calls answer from a table of
// handlers (missing ones reject like an unregistered call would), and
// emit() pushes an event to the stores' listeners as the host would.

import type { Bridge, BridgeCallName, BridgeCalls, BridgeEventName, BridgeEvents } from '../../../preload/contract';
import { BRIDGE_CALLS } from '../../../preload/contract';

export type FakeHandlers = {
  [K in BridgeCallName]?: (...args: Parameters<BridgeCalls[K]>) => ReturnType<BridgeCalls[K]> | Promise<ReturnType<BridgeCalls[K]>>;
};

export interface FakeBridge {
  bridge: Bridge;
  calls: { name: BridgeCallName; args: unknown[] }[];
  emit<E extends BridgeEventName>(event: E, payload: BridgeEvents[E]): void;
  listenerCount(event: BridgeEventName): number;
}

export function fakeBridge(handlers: FakeHandlers): FakeBridge {
  const listeners = new Map<BridgeEventName, Set<(p: unknown) => void>>();
  const calls: { name: BridgeCallName; args: unknown[] }[] = [];
  const b: Record<string, unknown> = {};
  for (const name of BRIDGE_CALLS) {
    b[name] = async (...args: unknown[]) => {
      calls.push({ name, args });
      const h = handlers[name] as ((...a: unknown[]) => unknown) | undefined;
      if (!h) throw new Error(`no handler for ${name}`);
      return h(...args);
    };
  }
  b.on = (event: BridgeEventName, listener: (p: unknown) => void) => {
    let set = listeners.get(event);
    if (!set) listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set!.delete(listener);
  };
  return {
    bridge: b as unknown as Bridge,
    calls,
    emit(event, payload) {
      for (const l of listeners.get(event) ?? []) l(payload);
    },
    listenerCount: (event) => listeners.get(event)?.size ?? 0,
  };
}
