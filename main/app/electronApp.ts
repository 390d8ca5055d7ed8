// The Electron main process, wired: the app's own protocol for the built
// renderer (rendererProtocol.ts, registered before anything else so it is in
// place before the app is ready), single instance, one locked-down window on
// pilothouse://app/index.html, the bridge over IPC with sender checks, the console
// services (the embedded control plane) started with the window and disposed
// before the app quits. Electron arrives as a parameter: main/index.ts loads
// it dynamically so builds and tests never need the binary.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserWindow as BrowserWindowType } from 'electron';
import type { EventSink } from '../../preload/contract';
import type { AttachOptions } from '../console/attachedCluster';
import { ConsoleSessions, type SessionServices } from '../console/consoleSessions';
import { hostPlaneSignals } from '../controlplane/pidFile';
import { registerBridgeIpc, webContentsEventSink } from './ipcBridge';
import { guardNavigation, permissionAllowed, withCsp } from './navigationPolicy';
import { APP_INDEX_URL, APP_SCHEME, APP_SCHEME_PRIVILEGES, serveRenderer } from './rendererProtocol';
import { isTrustedSender } from './senderCheck';
import { leaseTerminals } from './terminalLease';
import { windowOptions } from './windowOptions';

type ElectronModule = typeof import('electron');

export interface ElectronAppOptions {
  /** out/renderer: the only directory pilothouse://app serves. */
  rendererDir: string;
  /** out/preload/index.cjs */
  preloadPath: string;
  /** The control plane's data dir; default: <userData>/cluster. */
  dataDir?: string;
  portBase: number;
  cliPath: string;
  /** One cluster's services: the lab's (no attach) or a saved connection's; the session creates them on each switch. */
  createServices: (opts: { dataDir: string; portBase: number; cliPath: string; runtime: 'electron'; events: EventSink; attach?: AttachOptions; connection: { id: string; name: string } }) => SessionServices;
}

export async function runElectronApp(electron: ElectronModule, opts: ElectronAppOptions): Promise<void> {
  const { app, BrowserWindow, ipcMain, protocol, session, shell, dialog } = electron;
  // Privileged schemes can only be registered before 'ready': first, before any await.
  protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);
  // A second launch hands over to the first (which focuses its window) and exits.
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  let win: BrowserWindowType | undefined;
  app.on('second-instance', () => {
    if (!win || win.isDestroyed()) return;
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  });
  // Every webContents the app ever creates gets the navigation policy, not only ours.
  app.on('web-contents-created', (_event, contents) => guardNavigation(contents, (url) => void shell.openExternal(url)));

  await app.whenReady();
  protocol.handle(APP_SCHEME, (request) => serveRenderer(opts.rendererDir, request));
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, permission, callback) => callback(permissionAllowed(permission)));
  ses.setPermissionCheckHandler((_wc, permission) => permissionAllowed(permission));
  ses.webRequest.onHeadersReceived((details, callback) => callback({ responseHeaders: withCsp(details.responseHeaders) }));

  const events = webContentsEventSink(() => (win && !win.isDestroyed() ? win.webContents : undefined));
  const dataDir = opts.dataDir ?? join(app.getPath('userData'), 'cluster');
  // certs renew all finds the app through DIR/controlplane.pid (claimed while the lab is shown), as it finds `pilothouse up`.
  const services = new ConsoleSessions({
    dataDir,
    events,
    create: (t) => opts.createServices({ dataDir: t.dataDir, portBase: opts.portBase, cliPath: opts.cliPath, runtime: 'electron', events: t.events, connection: t.connection, ...(t.attach && { attach: t.attach }) }),
    hostPlane: (plane) => hostPlaneSignals(dataDir, plane, (line) => console.log(`pilothouse: ${line}`)),
    log: (line) => console.log(`pilothouse: ${line}`),
    labPortBase: opts.portBase,
  });
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    services.open();
  } catch (err) {
    dialog.showErrorBox('Pilothouse', (err as Error).message);
    app.exit(1);
    return;
  }
  const lease = leaseTerminals(services.handlers);
  const handlers = {
    ...lease.handlers,
    // a native dialog: the page never sees the file system, only the path the user picked (the call passes the sender check below)
    chooseSnapshotFile: async () => {
      const options: Electron.OpenDialogOptions = {
        title: 'Import a snapshot',
        properties: ['openFile'],
        filters: [{ name: 'etcd snapshots', extensions: ['db', 'snapshot'] }, { name: 'All files', extensions: ['*'] }],
      };
      const parent = win && !win.isDestroyed() ? win : undefined;
      const picked = parent ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options);
      return { path: picked.canceled ? null : (picked.filePaths[0] ?? null), dialog: true };
    },
  };
  const unregister = registerBridgeIpc(ipcMain, handlers, (sender) =>
    isTrustedSender(sender, { webContentsId: win && !win.isDestroyed() ? win.webContents.id : undefined }),
  );

  // Quit waits for the control plane to stop: members get SIGTERM, not orphaned.
  // A second quit while disposing (a second signal, Cmd-Q again) waits too.
  let phase: 'running' | 'disposing' | 'done' = 'running';
  app.on('before-quit', (event) => {
    if (phase === 'done') return;
    event.preventDefault();
    if (phase === 'disposing') return;
    phase = 'disposing';
    unregister();
    void services.dispose().finally(() => {
      phase = 'done';
      app.quit();
    });
  });
  app.on('window-all-closed', () => app.quit());
  // Ctrl-C in the terminal that ran `npm start`, or a SIGTERM: quit through
  // before-quit like a closed window, so the members are stopped, not orphaned.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => app.quit());

  win = new BrowserWindow(windowOptions({ preloadPath: opts.preloadPath }));
  win.once('ready-to-show', () => win?.show());
  // A (re)load starts a page that holds no terminals: close the previous page's.
  win.webContents.on('did-start-loading', () => lease.closeAll());
  await win.loadURL(APP_INDEX_URL);
  services.start().catch((err: unknown) => {
    dialog.showErrorBox('Pilothouse', `The control plane did not start: ${(err as Error).message}`);
  });
}
