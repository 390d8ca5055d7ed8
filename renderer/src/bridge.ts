// The renderer's only door to the console services. In Electron the preload
// puts the bridge on window.pilothouse; in a browser the web host serves the
// same contract over a WebSocket at /bridge, and this module builds the same
// Bridge shape on top of it. The rest of the renderer never knows which.
//
// The socket client:
// - authenticates with the tab's access token (accessToken.ts), offered as a
//   WebSocket subprotocol: the handshake's Sec-WebSocket-Protocol header is
//   the one place a browser's WebSocket can carry it (never the URL);
// - queues calls made while (re)connecting and sends them once open; calls
//   made between attempts fail at once (nothing could carry them);
// - rejects every call still waiting for an answer when the socket drops
//   (the host may have restarted: an answer will never come);
// - reconnects with exponential backoff; `on()` subscriptions live here, not
//   on the socket, so they survive reconnects.
//
// Typed against a minimal socket shape rather than the DOM's WebSocket so the
// same code runs (and is tested) under Node with the `ws` package.

import { takeAccessToken, type TokenPage } from './accessToken';
import {
  BRIDGE_CALLS,
  BRIDGE_SUBPROTOCOL,
  TOKEN_SUBPROTOCOL_PREFIX,
  type Bridge,
  type BridgeCallName,
  type BridgeEventName,
  type BridgeEvents,
  type WireCall,
  type WireMessage,
} from '../../preload/contract';

/** The subset of the WebSocket API the client uses (browser WebSocket and `ws` both fit). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export type ConnectionState = 'connecting' | 'open' | 'closed';

export interface SocketBridgeOptions {
  /** ws://host:port/bridge */
  url: string;
  /** The subprotocols to offer (bridgeProtocols(token)). */
  protocols: string[];
  /** Makes a socket; default: the global WebSocket. */
  connect?: (url: string, protocols: string[]) => SocketLike;
  /** First reconnect delay; doubles per failure up to maxBackoffMs. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

/** A Bridge over a socket, plus what only a socket has: connection state and close. */
export type SocketBridge = Bridge & {
  onConnection(listener: (state: ConnectionState) => void): () => void;
  /** Stop for good: close the socket, reject pending calls, no reconnect. */
  close(): void;
};

const OPEN = 1;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

export function createSocketBridge(opts: SocketBridgeOptions): SocketBridge {
  const connect =
    opts.connect ?? ((url: string, protocols: string[]) => new (globalThis as unknown as { WebSocket: new (u: string, p: string[]) => SocketLike }).WebSocket(url, protocols));
  const initialBackoff = opts.initialBackoffMs ?? 250;
  const maxBackoff = opts.maxBackoffMs ?? 5000;

  const listeners = new Map<BridgeEventName, Set<(payload: unknown) => void>>();
  const connectionListeners = new Set<(state: ConnectionState) => void>();
  const inFlight = new Map<number, Pending>();
  /** Calls made while not open: sent on the next open, rejected if that attempt fails. */
  let queued: { call: WireCall; pending: Pending }[] = [];
  let nextId = 1;
  let backoff = initialBackoff;
  let socket: SocketLike | undefined;
  let state: ConnectionState = 'closed';
  let stopped = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  function setState(s: ConnectionState): void {
    if (s === state) return;
    state = s;
    for (const l of connectionListeners) l(s);
  }

  function open(): void {
    retryTimer = undefined;
    if (stopped) return;
    setState('connecting');
    let ws: SocketLike;
    try {
      ws = connect(opts.url, opts.protocols);
    } catch {
      return lost(undefined);
    }
    socket = ws;
    ws.onopen = () => {
      backoff = initialBackoff;
      setState('open');
      const toSend = queued;
      queued = [];
      for (const q of toSend) transmit(ws, q.call, q.pending);
    };
    ws.onmessage = (ev) => receive(ev.data);
    ws.onerror = () => {
      // Always followed by close; the close handler does the work.
    };
    ws.onclose = () => lost(ws);
  }

  /** The socket is gone: fail what waits on it and schedule the next attempt. */
  function lost(ws: SocketLike | undefined): void {
    if (ws && ws !== socket) return;
    socket = undefined;
    const err = new Error('console bridge disconnected');
    for (const p of inFlight.values()) p.reject(err);
    inFlight.clear();
    for (const q of queued) q.pending.reject(err);
    queued = [];
    setState('closed');
    if (stopped) return;
    retryTimer = setTimeout(open, backoff);
    backoff = Math.min(backoff * 2, maxBackoff);
  }

  function transmit(ws: SocketLike, call: WireCall, pending: Pending): void {
    inFlight.set(call.id, pending);
    try {
      ws.send(JSON.stringify(call));
    } catch (err) {
      inFlight.delete(call.id);
      pending.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  function receive(data: unknown): void {
    let msg: WireMessage;
    try {
      msg = JSON.parse(typeof data === 'string' ? data : String(data)) as WireMessage;
    } catch {
      return;
    }
    if (msg.t === 'result') {
      const pending = inFlight.get(msg.id);
      if (!pending) return;
      inFlight.delete(msg.id);
      if (msg.ok) pending.resolve(msg.value);
      else pending.reject(new Error(msg.error));
    } else if (msg.t === 'event') {
      for (const l of listeners.get(msg.name) ?? []) {
        try {
          l(msg.payload);
        } catch (err) {
          // One broken listener must not starve the others.
          console.error(`bridge listener for ${msg.name} failed`, err);
        }
      }
    }
  }

  function call(name: BridgeCallName, args: unknown[]): Promise<unknown> {
    if (stopped) return Promise.reject(new Error('console bridge closed'));
    // Between attempts nothing would carry the call; fail now rather than after the backoff.
    if (state === 'closed') return Promise.reject(new Error('console bridge disconnected'));
    return new Promise((resolve, reject) => {
      const wire: WireCall = { t: 'call', id: nextId++, name, args };
      const pending = { resolve, reject };
      if (socket && socket.readyState === OPEN && state === 'open') transmit(socket, wire, pending);
      else queued.push({ call: wire, pending });
    });
  }

  const calls = Object.fromEntries(BRIDGE_CALLS.map((name) => [name, (...args: unknown[]) => call(name, args)]));

  const client = {
    ...calls,
    on<E extends BridgeEventName>(event: E, listener: (payload: BridgeEvents[E]) => void): () => void {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      const l = listener as (payload: unknown) => void;
      set.add(l);
      return () => void set.delete(l);
    },
    onConnection(listener: (s: ConnectionState) => void): () => void {
      connectionListeners.add(listener);
      listener(state);
      return () => void connectionListeners.delete(listener);
    },
    close(): void {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      const ws = socket;
      lost(ws);
      ws?.close(1000, 'closed by the console');
    },
  } as SocketBridge;

  open();
  return client;
}

/** The /bridge URL for a page served by the web host (no token: that travels in the subprotocols). */
export function bridgeUrlFor(location: { protocol: string; host: string }): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/bridge`;
}

/** The subprotocols the bridge socket offers: the bridge's own (the host selects it) and the token. */
export function bridgeProtocols(token: string): string[] {
  return [BRIDGE_SUBPROTOCOL, `${TOKEN_SUBPROTOCOL_PREFIX}${token}`];
}

let instance: Bridge | undefined;
let connectionSource: SocketBridge | undefined;

/**
 * The console bridge: the preload's in Electron, a WebSocket client in a
 * browser — or none in a browser tab without the access token (the shell then
 * says to open the URL `pilothouse web` printed). One per page; the first call
 * takes the token out of the URL, so main.ts calls it before the router starts.
 */
export function bridge(): Bridge | undefined {
  if (instance) return instance;
  const g = globalThis as unknown as { pilothouse?: Bridge; location: { protocol: string; host: string } } & TokenPage;
  if (g.pilothouse) return (instance = g.pilothouse);
  const token = takeAccessToken(g);
  if (!token) return undefined;
  connectionSource = createSocketBridge({ url: bridgeUrlFor(g.location), protocols: bridgeProtocols(token) });
  return (instance = connectionSource);
}

/**
 * Follow the bridge's connection (for a "reconnecting…" banner). In Electron
 * the bridge is IPC within one process and is always 'open'; without a bridge
 * it is 'closed'.
 */
export function onBridgeConnection(listener: (state: ConnectionState) => void): () => void {
  const b = bridge();
  if (!connectionSource) {
    listener(b ? 'open' : 'closed');
    return () => {};
  }
  return connectionSource.onConnection(listener);
}
