// Exposes the bridge contract to the renderer and nothing else: one invoke per
// contract call and `on(event, listener)` for the event streams — no Node, no
// ipcRenderer, no other channel. Listeners receive only the payload (never
// the IPC event, which would hand the page ipcRenderer's sender object).

import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { BRIDGE_CALLS, BRIDGE_EVENTS, channelFor, eventChannelFor, type Bridge, type BridgeEventName } from './contract';

const knownEvents = new Set<string>(BRIDGE_EVENTS);

const calls = Object.fromEntries(BRIDGE_CALLS.map((name) => [name, (...args: unknown[]) => ipcRenderer.invoke(channelFor(name), ...args)]));

function on(event: BridgeEventName, listener: (payload: unknown) => void): () => void {
  if (!knownEvents.has(event)) throw new Error(`unknown bridge event "${String(event)}"`);
  if (typeof listener !== 'function') throw new Error('listener must be a function');
  const channel = eventChannelFor(event);
  const wrapped = (_e: IpcRendererEvent, payload: unknown) => listener(payload);
  ipcRenderer.on(channel, wrapped);
  return () => void ipcRenderer.removeListener(channel, wrapped);
}

contextBridge.exposeInMainWorld('pilothouse', { ...calls, on } as unknown as Bridge);
