// The stores' handle on the bridge. main.ts provides the real one (preload or
// web host client); unit tests provide a typed fake. Stores are the only
// layer that calls it — views and components go through stores.

import type { Bridge } from '../../../preload/contract';

let current: Bridge | undefined;

export function provideBridge(b: Bridge | undefined): void {
  current = b;
}

export function hasBridge(): boolean {
  return current !== undefined;
}

export function useBridge(): Bridge {
  if (!current) throw new Error('No console bridge: open the console through `pilothouse web` (its URL carries the token) or the Electron app.');
  return current;
}
