// Exposes the bridge contract to the renderer and nothing else: no Node, no
// ipcRenderer, only one invoke per contract call.

import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_CALLS, channelFor, type Bridge } from './contract';

const bridge = Object.fromEntries(
  BRIDGE_CALLS.map((name) => [name, (...args: unknown[]) => ipcRenderer.invoke(channelFor(name), ...args)]),
) as Bridge;

contextBridge.exposeInMainWorld('pilothouse', bridge);
