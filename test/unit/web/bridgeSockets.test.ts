import { describe, expect, it } from 'vitest';
import type { BridgeHandlers } from '../../../preload/contract';
import { dispatchCall, parseWireCall } from '../../../main/web/bridgeSockets';

describe('parseWireCall', () => {
  const cases = [
    { name: 'valid', raw: '{"t":"call","id":1,"name":"version","args":[]}', want: { t: 'call', id: 1, name: 'version', args: [] } },
    { name: 'extra fields dropped', raw: '{"t":"call","id":2,"name":"logs","args":[{"component":"m1"}],"x":1}', want: { t: 'call', id: 2, name: 'logs', args: [{ component: 'm1' }] } },
    { name: 'not JSON', raw: '{', want: 'message is not JSON' },
    { name: 'null', raw: 'null', want: 'message is not an object' },
    { name: 'wrong type', raw: '{"t":"event","id":1,"name":"version","args":[]}', want: 'message type must be "call"' },
    { name: 'fractional id', raw: '{"t":"call","id":1.5,"name":"version","args":[]}', want: 'call id must be an integer' },
    { name: 'numeric name', raw: '{"t":"call","id":1,"name":3,"args":[]}', want: 'call name must be a string' },
    { name: 'args object', raw: '{"t":"call","id":1,"name":"version","args":{}}', want: 'call args must be an array' },
  ];
  it.each(cases)('$name', ({ raw, want }) => expect(parseWireCall(raw)).toEqual(want));
});

describe('dispatchCall', () => {
  const handlers = {
    version: () => ({ pilothouse: '0.1.0', commit: '1a2b3c4', runtime: 'web', versions: {} }),
    logs: async (req: { component: string }) => [{ component: req.component, seq: 1, at: 'now', stream: 'stdout', text: 'hi' }],
    terminalInput: () => undefined,
    members: () => {
      throw new Error('etcdserver: no leader');
    },
  } as unknown as BridgeHandlers;
  const cases = [
    { name: 'sync value', call: { name: 'version', args: [] }, want: { ok: true, value: { pilothouse: '0.1.0', commit: '1a2b3c4', runtime: 'web', versions: {} } } },
    { name: 'async value with args', call: { name: 'logs', args: [{ component: 'm1' }] }, want: { ok: true, value: [{ component: 'm1', seq: 1, at: 'now', stream: 'stdout', text: 'hi' }] } },
    { name: 'void becomes null', call: { name: 'terminalInput', args: [{ id: 't1', data: 'x' }] }, want: { ok: true, value: null } },
    { name: 'thrown error', call: { name: 'members', args: [] }, want: { ok: false, error: 'etcdserver: no leader' } },
    { name: 'unknown call', call: { name: 'constructor', args: [] }, want: { ok: false, error: 'unknown bridge call "constructor"' } },
    { name: 'prototype name', call: { name: '__proto__', args: [] }, want: { ok: false, error: 'unknown bridge call "__proto__"' } },
  ];
  it.each(cases)('$name', async ({ call, want }) => {
    const got = await dispatchCall(handlers, { t: 'call', id: 7, name: call.name as never, args: call.args });
    expect(got).toEqual({ t: 'result', id: 7, ...want });
  });
});
