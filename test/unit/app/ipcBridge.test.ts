import { describe, expect, it } from 'vitest';
import { BRIDGE_CALLS, channelFor, eventChannelFor, type BridgeHandlers } from '../../../preload/contract';
import { REFUSED_SENDER, registerBridgeIpc, senderInfo, webContentsEventSink, type IpcMainLike } from '../../../main/app/ipcBridge';
import { isTrustedSender } from '../../../main/app/senderCheck';

type Listener = (event: never, ...args: unknown[]) => unknown;

/** ipcMain in memory: handle/removeHandler and an invoke that builds a sender. */
function fakeIpc() {
  const handlers = new Map<string, Listener>();
  const ipc: IpcMainLike = {
    handle: (channel, listener) => {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, listener as Listener);
    },
    removeHandler: (channel) => void handlers.delete(channel),
  };
  const invoke = async (channel: string, sender: { id: number; url?: string; top?: boolean }, ...args: unknown[]) => {
    const frame = sender.url === undefined ? null : { url: sender.url, parent: sender.top === false ? {} : null };
    const h = handlers.get(channel);
    if (!h) throw new Error(`No handler registered for '${channel}'`);
    return h({ sender: { id: sender.id }, senderFrame: frame } as never, ...args);
  };
  return { ipc, handlers, invoke };
}

const indexUrl = 'pilothouse://app/index.html';
const handlers = Object.fromEntries(BRIDGE_CALLS.map((n) => [n, (...args: unknown[]) => ({ call: n, args })])) as unknown as BridgeHandlers;

describe('registerBridgeIpc', () => {
  it('registers one channel per contract call and removes them all', () => {
    const f = fakeIpc();
    const dispose = registerBridgeIpc(f.ipc, handlers, () => true);
    expect([...f.handlers.keys()].sort()).toEqual(BRIDGE_CALLS.map(channelFor).sort());
    dispose();
    expect(f.handlers.size).toBe(0);
  });

  const trusted = (s: Parameters<typeof isTrustedSender>[0]) => isTrustedSender(s, { webContentsId: 3 });
  const cases = [
    { name: 'our window', sender: { id: 3, url: `${indexUrl}#/leader` }, ok: true },
    { name: 'other webContents', sender: { id: 4, url: indexUrl }, ok: false },
    { name: 'subframe of our window', sender: { id: 3, url: indexUrl, top: false }, ok: false },
    { name: 'destroyed frame', sender: { id: 3 }, ok: false },
    { name: 'navigated away', sender: { id: 3, url: 'https://evil.example/' }, ok: false },
  ];
  it.each(cases)('sender check: $name', async ({ sender, ok }) => {
    const f = fakeIpc();
    registerBridgeIpc(f.ipc, handlers, trusted);
    const call = f.invoke(channelFor('memberAction'), sender, { member: 'm1', action: 'kill' });
    if (ok) await expect(call).resolves.toEqual({ call: 'memberAction', args: [{ member: 'm1', action: 'kill' }] });
    else await expect(call).rejects.toThrow(REFUSED_SENDER);
  });

  it('senderInfo reads id, frame URL and top-frame-ness', () => {
    expect(senderInfo({ sender: { id: 9 }, senderFrame: { url: indexUrl, parent: null } } as never)).toEqual({ webContentsId: 9, frameUrl: indexUrl, isTopFrame: true });
    expect(senderInfo({ sender: { id: 9 }, senderFrame: null } as never)).toEqual({ webContentsId: 9, frameUrl: undefined, isTopFrame: false });
  });
});

describe('webContentsEventSink', () => {
  it('sends on the event channel while the window lives, drops otherwise', () => {
    const sent: [string, unknown][] = [];
    let destroyed = false;
    let present = true;
    const target = { isDestroyed: () => destroyed, send: (c: string, p: unknown) => void sent.push([c, p]) };
    const sink = webContentsEventSink(() => (present ? target : undefined));
    sink.emit('terminalExit', { id: 't1', code: 0 });
    destroyed = true;
    sink.emit('terminalExit', { id: 't2', code: 0 });
    present = false;
    sink.emit('terminalExit', { id: 't3', code: 0 });
    expect(sent).toEqual([[eventChannelFor('terminalExit'), { id: 't1', code: 0 }]]);
  });
});
