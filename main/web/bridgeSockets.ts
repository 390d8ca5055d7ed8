// The bridge contract over WebSockets: each socket sends WireCall messages and
// gets one WireMessage result per call; events go to every connected socket.
// The same BridgeHandlers map the Electron shell registers with ipcMain is
// served here, so the renderer cannot tell the hosts apart.
//
// Authentication happens before a socket gets here (the HTTP upgrade is
// checked by the host); this module only speaks the wire format.

import type { WebSocket } from 'ws';
import {
  BRIDGE_CALLS,
  type BridgeCallName,
  type BridgeEventName,
  type BridgeEvents,
  type BridgeHandlers,
  type EventSink,
  type WireCall,
  type WireMessage,
} from '../../preload/contract';

const KNOWN_CALLS = new Set<string>(BRIDGE_CALLS);

/**
 * A socket that cannot keep up (a stalled tab under a flood of watch events)
 * is dropped rather than buffered without bound; the client reconnects and
 * re-reads state.
 */
const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

/** Parse and check one incoming message; a string is the reason it is invalid. */
export function parseWireCall(raw: string): WireCall | string {
  let msg: unknown;
  try {
    msg = JSON.parse(raw);
  } catch {
    return 'message is not JSON';
  }
  if (typeof msg !== 'object' || msg === null) return 'message is not an object';
  const m = msg as Record<string, unknown>;
  if (m.t !== 'call') return 'message type must be "call"';
  if (typeof m.id !== 'number' || !Number.isSafeInteger(m.id)) return 'call id must be an integer';
  if (typeof m.name !== 'string') return 'call name must be a string';
  if (!Array.isArray(m.args)) return 'call args must be an array';
  return { t: 'call', id: m.id, name: m.name as BridgeCallName, args: m.args };
}

/** Run one call against the handlers; never throws (errors become ok:false). */
export async function dispatchCall(handlers: BridgeHandlers, call: WireCall): Promise<WireMessage> {
  if (!KNOWN_CALLS.has(call.name)) return { t: 'result', id: call.id, ok: false, error: `unknown bridge call "${call.name}"` };
  try {
    const fn = handlers[call.name] as (...args: unknown[]) => unknown;
    const value = await fn(...call.args);
    // undefined (void calls) is not JSON; null travels instead.
    return { t: 'result', id: call.id, ok: true, value: value === undefined ? null : value };
  } catch (err) {
    return { t: 'result', id: call.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** Every connected bridge socket; also the EventSink the console services publish to. */
export class BridgeSockets implements EventSink {
  private readonly sockets = new Set<WebSocket>();
  private handlers?: BridgeHandlers;

  /** The handlers arrive after construction: the services need this sink to be built. */
  serve(handlers: BridgeHandlers): void {
    this.handlers = handlers;
  }

  attach(ws: WebSocket): void {
    this.sockets.add(ws);
    // Terminals this socket opened: a closed tab or a reload would otherwise
    // leave their shells running, and the terminal count is bounded.
    const terminals = new Set<string>();
    const gone = () => {
      if (!this.sockets.delete(ws)) return;
      for (const id of terminals) void dispatchCall(this.handlers!, { t: 'call', id: 0, name: 'closeTerminal', args: [{ id }] });
    };
    ws.on('close', gone);
    ws.on('error', gone);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return ws.close(1003, 'binary messages are not supported');
      const call = parseWireCall(data.toString());
      if (typeof call === 'string') return ws.close(1007, call);
      if (!this.handlers) return send(ws, { t: 'result', id: call.id, ok: false, error: 'the console services are not ready' });
      void dispatchCall(this.handlers, call).then((result) => {
        if (result.t === 'result' && result.ok) trackTerminals(terminals, call, result.value);
        send(ws, result);
      });
    });
  }

  emit<E extends BridgeEventName>(event: E, payload: BridgeEvents[E]): void {
    if (this.sockets.size === 0) return;
    const text = JSON.stringify({ t: 'event', name: event, payload } satisfies WireMessage);
    for (const ws of this.sockets) sendText(ws, text);
  }

  get size(): number {
    return this.sockets.size;
  }

  /** Close every socket (1001 "going away": the host is shutting down). */
  closeAll(): void {
    for (const ws of this.sockets) ws.close(1001, 'pilothouse web host shutting down');
    this.sockets.clear();
  }
}

/** Follow which terminals a socket holds open (opened by it, not yet closed by it). */
function trackTerminals(held: Set<string>, call: WireCall, value: unknown): void {
  if (call.name === 'openTerminal') {
    const id = (value as { id?: unknown } | null)?.id;
    if (typeof id === 'string') held.add(id);
  } else if (call.name === 'closeTerminal') {
    const id = (call.args[0] as { id?: unknown } | undefined)?.id;
    if (typeof id === 'string') held.delete(id);
  }
}

function send(ws: WebSocket, msg: WireMessage): void {
  let text: string;
  try {
    text = JSON.stringify(msg);
  } catch (err) {
    // A handler returned something JSON cannot carry (bigint, a cycle): tell the caller.
    if (msg.t !== 'result') return;
    text = JSON.stringify({ t: 'result', id: msg.id, ok: false, error: `result is not JSON: ${(err as Error).message}` } satisfies WireMessage);
  }
  sendText(ws, text);
}

function sendText(ws: WebSocket, text: string): void {
  if (ws.readyState !== ws.OPEN) return;
  if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
    ws.terminate();
    return;
  }
  ws.send(text);
}
