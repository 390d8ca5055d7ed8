// The typed bridge between the console's services and the renderer: every
// call the renderer may make, with its argument and result types. Main
// registers one handler per key (the compiler notices a missing one), the
// preload exposes exactly these, and the web host will serve the same map.
// The console issue (K1) grows this; today it answers "what am I".

export interface BridgeCalls {
  /** Pilothouse's version and the runtime the console runs in. */
  version(): { pilothouse: string; runtime: 'electron' | 'web'; versions: Record<string, string> };
}

export type BridgeCallName = keyof BridgeCalls;

/** The IPC channel each call travels on. */
export function channelFor(name: BridgeCallName): string {
  return `pilothouse:${name}`;
}

/** What the renderer sees on `window.pilothouse`. */
export type Bridge = {
  [K in BridgeCallName]: (...args: Parameters<BridgeCalls[K]>) => Promise<ReturnType<BridgeCalls[K]>>;
};

export const BRIDGE_CALLS: readonly BridgeCallName[] = ['version'];
