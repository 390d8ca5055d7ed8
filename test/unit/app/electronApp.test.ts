// runElectronApp against an in-memory Electron (the binary is absent here):
// the pilothouse:// scheme registered before ready and served from the
// renderer dir, the window on pilothouse://app/index.html,
// single-instance hand-over, the session policy (permissions, CSP header),
// IPC answered only for the console window's own page, events to that
// window, a reload closing the page's terminals, and quit waiting for the
// control plane to stop.

import { EventEmitter } from 'node:events';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { channelFor, eventChannelFor, type BridgeHandlers, type EventSink } from '../../../preload/contract';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consoleCsp } from '../../../main/common/rendererHost/csp';
import { REFUSED_SENDER } from '../../../main/app/ipcBridge';
import { runElectronApp } from '../../../main/app/electronApp';

const RENDERER_DIR = mkdtempSync(join(tmpdir(), 'pilothouse-electron-renderer-'));
mkdirSync(join(RENDERER_DIR, 'assets'));
writeFileSync(join(RENDERER_DIR, 'index.html'), '<!doctype html><title>Pilothouse</title>');
writeFileSync(join(RENDERER_DIR, 'assets', 'index-x.js'), 'export {}');
afterAll(() => rmSync(RENDERER_DIR, { recursive: true, force: true }));
const PAGE = 'pilothouse://app/index.html';

function fakeElectron(opts: { lock?: boolean } = {}) {
  /** The order of the calls that must come before or after 'ready'. */
  const order: string[] = [];
  const app = Object.assign(new EventEmitter(), {
    quits: 0,
    prevented: [] as boolean[],
    requestSingleInstanceLock: () => opts.lock ?? true,
    whenReady: async () => void order.push('ready'),
    getPath: (name: string) => `/home/u/.config/Pilothouse-${name}`,
    quit() {
      app.quits++;
      const event = { defaultPrevented: false, preventDefault: () => (event.defaultPrevented = true) };
      app.emit('before-quit', event);
      app.prevented.push(event.defaultPrevented);
    },
  });
  const windows: FakeWindow[] = [];
  class FakeWindow extends EventEmitter {
    static nextId = 1;
    options: unknown;
    loaded?: string;
    shown = false;
    focused = false;
    webContents = Object.assign(new EventEmitter(), {
      id: FakeWindow.nextId++,
      sent: [] as [string, unknown][],
      isDestroyed: () => false,
      send(channel: string, payload: unknown) {
        this.sent.push([channel, payload]);
      },
    });
    constructor(options: unknown) {
      super();
      this.options = options;
      windows.push(this);
    }
    isDestroyed = () => false;
    isMinimized = () => false;
    restore() {}
    show() {
      this.shown = true;
    }
    focus() {
      this.focused = true;
    }
    async loadURL(url: string) {
      this.loaded = url;
    }
  }
  const ipc = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  const session = {
    permission: undefined as undefined | ((wc: unknown, p: string, cb: (ok: boolean) => void) => void),
    check: undefined as undefined | ((wc: unknown, p: string) => boolean),
    headers: undefined as undefined | ((d: { responseHeaders?: Record<string, string[]> }, cb: (r: unknown) => void) => void),
  };
  const protocol = {
    privileged: [] as unknown[],
    handlers: new Map<string, (request: Request) => Promise<Response>>(),
    registerSchemesAsPrivileged(schemes: unknown[]) {
      order.push('registerSchemesAsPrivileged');
      protocol.privileged.push(...schemes);
    },
    handle(scheme: string, handler: (request: Request) => Promise<Response>) {
      order.push(`handle ${scheme}`);
      protocol.handlers.set(scheme, handler);
    },
  };
  const electron = {
    app,
    protocol,
    BrowserWindow: FakeWindow,
    ipcMain: { handle: (c: string, l: (event: unknown, ...args: unknown[]) => unknown) => ipc.set(c, l), removeHandler: (c: string) => ipc.delete(c) },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (h: typeof session.permission) => (session.permission = h),
        setPermissionCheckHandler: (h: typeof session.check) => (session.check = h),
        webRequest: { onHeadersReceived: (h: typeof session.headers) => (session.headers = h) },
      },
    },
    shell: { openExternal: async () => {} },
    dialog: { showErrorBox: () => {} },
  };
  return { electron: electron as unknown as typeof import('electron'), app, windows, ipc, session, protocol, order };
}

function fakeServices() {
  const log: string[] = [];
  let events: EventSink | undefined;
  let finishDispose!: () => void;
  const create = (o: { dataDir: string; runtime: string; events: EventSink }) => {
    log.push(`create ${o.runtime} ${o.dataDir}`);
    events = o.events;
    return {
      handlers: {
        version: () => ({ pilothouse: 'x', commit: 'x', runtime: 'electron', versions: {} }),
        openTerminal: () => ({ id: 't1', title: 'bash 1', missingTools: [] }),
        closeTerminal: (r: { id: string }) => void log.push(`close ${r.id}`),
      } as unknown as BridgeHandlers,
      start: async () => void log.push('start'),
      dispose: () => {
        log.push('dispose');
        return new Promise<void>((r) => (finishDispose = r));
      },
    };
  };
  return { log, create, events: () => events!, finishDispose: () => finishDispose() };
}

const signalListeners = () => ({ INT: process.listeners('SIGINT'), TERM: process.listeners('SIGTERM') });
let before = signalListeners();
afterEach(() => {
  for (const l of process.listeners('SIGINT')) if (!before.INT.includes(l)) process.off('SIGINT', l);
  for (const l of process.listeners('SIGTERM')) if (!before.TERM.includes(l)) process.off('SIGTERM', l);
  before = signalListeners();
});

async function start(lock = true) {
  const f = fakeElectron({ lock });
  const s = fakeServices();
  await runElectronApp(f.electron, { rendererDir: RENDERER_DIR, preloadPath: '/app/out/preload/index.cjs', portBase: 28490, cliPath: '/app/out/main/cli.js', createServices: s.create });
  return { ...f, s };
}

const invoke = (ipc: Map<string, (event: unknown, ...args: unknown[]) => unknown>, name: string, sender: { id: number; url: string | null }, ...args: unknown[]) =>
  Promise.resolve().then(() => ipc.get(channelFor(name as never))!({ sender: { id: sender.id }, senderFrame: sender.url === null ? null : { url: sender.url, parent: null } }, ...args));

describe('runElectronApp', () => {
  it('a second instance quits at once and starts nothing', async () => {
    const { app, windows, s } = await start(false);
    expect(app.quits).toBe(1);
    expect(windows).toHaveLength(0);
    expect(s.log).toEqual([]);
  });

  it('registers the pilothouse scheme as privileged before ready, and handles it after', async () => {
    const { order, protocol } = await start();
    expect(order).toEqual(['registerSchemesAsPrivileged', 'ready', 'handle pilothouse']);
    expect(protocol.privileged).toEqual([{ scheme: 'pilothouse', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
  });

  it('a second instance registers the scheme too (it must be before ready) and handles nothing', async () => {
    const { order } = await start(false);
    expect(order).toEqual(['registerSchemesAsPrivileged']);
  });

  it('serves the renderer dir on pilothouse://app and nothing outside it', async () => {
    const { protocol } = await start();
    const handler = protocol.handlers.get('pilothouse')!;
    const page = await handler(new Request(PAGE));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(consoleCsp('electron'));
    expect(await page.text()).toContain('<title>Pilothouse</title>');
    const js = await handler(new Request('pilothouse://app/assets/index-x.js'));
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await handler(new Request('pilothouse://app/..%2f..%2fetc%2fpasswd'))).status).toBe(404);
  });

  it('opens one window on the renderer with the reviewed options and starts the services', async () => {
    const { windows, s } = await start();
    expect(windows).toHaveLength(1);
    expect(windows[0]!.loaded).toBe(PAGE);
    expect((windows[0]!.options as { webPreferences: { sandbox: boolean } }).webPreferences.sandbox).toBe(true);
    expect(s.log).toEqual(['create electron /home/u/.config/Pilothouse-userData/cluster', 'start']);
  });

  it('a second launch focuses the window', async () => {
    const { app, windows } = await start();
    app.emit('second-instance');
    expect(windows[0]!.shown && windows[0]!.focused).toBe(true);
  });

  it('refuses every permission and sets the CSP header', async () => {
    const { session } = await start();
    const answers: boolean[] = [];
    session.permission!({}, 'media', (ok) => answers.push(ok));
    expect(answers).toEqual([false]);
    expect(session.check!({}, 'clipboard-read')).toBe(false);
    let headers: unknown;
    session.headers!({ responseHeaders: { 'Content-Type': ['text/html'] } }, (r) => (headers = r));
    expect(headers).toEqual({ responseHeaders: { 'Content-Type': ['text/html'], 'Content-Security-Policy': [consoleCsp('electron')] } });
  });

  it('answers IPC only from the window showing our page', async () => {
    const { ipc, windows } = await start();
    const id = windows[0]!.webContents.id;
    await expect(invoke(ipc, 'version', { id, url: `${PAGE}#/overview` })).resolves.toMatchObject({ runtime: 'electron' });
    await expect(invoke(ipc, 'version', { id: id + 100, url: PAGE })).rejects.toThrow(REFUSED_SENDER);
    await expect(invoke(ipc, 'version', { id, url: `file://${RENDERER_DIR}/index.html` })).rejects.toThrow(REFUSED_SENDER);
    await expect(invoke(ipc, 'version', { id, url: 'https://evil.example/' })).rejects.toThrow(REFUSED_SENDER);
    await expect(invoke(ipc, 'version', { id, url: null })).rejects.toThrow(REFUSED_SENDER);
  });

  it('pushes events to the window and closes its terminals on reload', async () => {
    const { ipc, windows, s } = await start();
    const w = windows[0]!;
    s.events().emit('terminalExit', { id: 't9', code: 1 });
    expect(w.webContents.sent).toEqual([[eventChannelFor('terminalExit'), { id: 't9', code: 1 }]]);
    await invoke(ipc, 'openTerminal', { id: w.webContents.id, url: PAGE }, { cols: 80, rows: 24 });
    w.webContents.emit('did-start-loading');
    await new Promise((r) => setTimeout(r, 0));
    expect(s.log).toContain('close t1');
  });

  it('quit waits for the control plane to stop, even when asked twice', async () => {
    const { app, ipc, s } = await start();
    app.quit();
    app.quit(); // a second signal while stopping
    expect(s.log.filter((l) => l === 'dispose')).toHaveLength(1);
    expect(ipc.size).toBe(0); // the bridge is gone while the members stop
    expect(app.prevented).toEqual([true, true]);
    s.finishDispose();
    await new Promise((r) => setTimeout(r, 0));
    expect(app.prevented).toEqual([true, true, false]); // the final quit goes through
  });
});
