// The bridge over Electron IPC: one ipcMain.handle per contract call, each
// refusing senders other than the console window (senderCheck.ts), and the
// EventSink that pushes event streams to that window.

import type { IpcMainInvokeEvent } from 'electron';
import { BRIDGE_CALLS, channelFor, eventChannelFor, type BridgeEventName, type BridgeEvents, type BridgeHandlers, type EventSink } from '../../preload/contract';
import type { SenderInfo } from './senderCheck';

/** The ipcMain surface used (Electron's ipcMain fits; tests pass a fake). */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

/** What the sender check needs from an invoke event. */
export function senderInfo(event: Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>): SenderInfo {
  const frame = event.senderFrame;
  return {
    webContentsId: event.sender.id,
    frameUrl: frame?.url,
    isTopFrame: frame !== null && frame !== undefined && frame.parent === null,
  };
}

export const REFUSED_SENDER = 'bridge call refused: the sender is not the Pilothouse console window';

/** Registers every call; returns the function that removes them again. */
export function registerBridgeIpc(ipc: IpcMainLike, handlers: BridgeHandlers, trusted: (sender: SenderInfo) => boolean): () => void {
  for (const name of BRIDGE_CALLS) {
    const fn = handlers[name] as (...args: unknown[]) => unknown;
    ipc.handle(channelFor(name), (event, ...args) => {
      if (!trusted(senderInfo(event))) throw new Error(REFUSED_SENDER);
      return fn(...args);
    });
  }
  return () => {
    for (const name of BRIDGE_CALLS) ipc.removeHandler(channelFor(name));
  };
}

/** The webContents surface the sink needs. */
export interface EventTarget {
  isDestroyed(): boolean;
  send(channel: string, payload: unknown): void;
}

/**
 * Events go to the console window when it exists; before it does (or after
 * it closed) they are dropped: the renderer re-reads state when it loads.
 */
export function webContentsEventSink(target: () => EventTarget | undefined): EventSink {
  return {
    emit<E extends BridgeEventName>(event: E, payload: BridgeEvents[E]): void {
      const t = target();
      if (t && !t.isDestroyed()) t.send(eventChannelFor(event), payload);
    },
  };
}
