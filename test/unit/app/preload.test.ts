// The preload with Electron's modules faked: what it exposes must be exactly
// the contract (one invoke per call, plus on()).
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { BRIDGE_CALLS, channelFor, eventChannelFor } from '../../../preload/contract';

const exposed = new Map<string, unknown>();
const invoked: unknown[][] = [];
const ipcListeners = new Map<string, Set<(...a: unknown[]) => void>>();

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
  ipcRenderer: {
    invoke: async (...args: unknown[]) => {
      invoked.push(args);
      return 'answer';
    },
    on: (channel: string, l: (...a: unknown[]) => void) => {
      if (!ipcListeners.has(channel)) ipcListeners.set(channel, new Set());
      ipcListeners.get(channel)!.add(l);
    },
    removeListener: (channel: string, l: (...a: unknown[]) => void) => ipcListeners.get(channel)?.delete(l),
  },
}));

type Api = Record<string, (...a: unknown[]) => unknown>;
let api: Api;
beforeAll(async () => {
  await import('../../../preload/index');
  api = exposed.get('pilothouse') as Api;
});

describe('preload', () => {
  it('exposes only window.pilothouse with the contract calls and on()', () => {
    expect([...exposed.keys()]).toEqual(['pilothouse']);
    expect(Object.keys(api).sort()).toEqual([...BRIDGE_CALLS, 'on'].sort());
  });

  it('each call invokes its channel with the arguments', async () => {
    expect(await api.logs!({ component: 'm2' })).toBe('answer');
    expect(invoked.at(-1)).toEqual([channelFor('logs'), { component: 'm2' }]);
  });

  it('on() delivers payloads only (not the IPC event) and unsubscribes', () => {
    const got: unknown[] = [];
    const off = api.on!('terminalData', (p: unknown) => got.push(p)) as () => void;
    const channel = eventChannelFor('terminalData');
    for (const l of ipcListeners.get(channel) ?? []) l({ sender: 'ipc-event' }, { id: 't1', data: 'x' });
    off();
    for (const l of ipcListeners.get(channel) ?? []) l({ sender: 'ipc-event' }, { id: 't1', data: 'y' });
    expect(got).toEqual([{ id: 't1', data: 'x' }]);
    expect(ipcListeners.get(channel)?.size).toBe(0);
  });

  it('on() refuses unknown events', () => {
    expect(() => api.on!('anything', () => {})).toThrow('unknown bridge event "anything"');
  });
});
