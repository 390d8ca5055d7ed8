// The Electron main process: one locked-down window on the built renderer and
// a handler for every bridge call. The console services arrive with issue K1.
// Electron is loaded dynamically: the build never needs the binary, and under
// plain Node (no Electron binary) this entry explains itself instead of crashing.

import { join } from 'node:path';
import type { BridgeCalls } from '../preload/contract';
import { BRIDGE_CALLS, channelFor } from '../preload/contract';
import { PILOTHOUSE_VERSION } from './common/cli/version';

type ElectronModule = typeof import('electron');

async function loadElectron(): Promise<ElectronModule | undefined> {
  try {
    const mod = (await import('electron')) as ElectronModule & { default?: unknown };
    // Outside Electron, the npm package exports the binary's path (a string).
    return typeof mod.default === 'string' || !mod.app ? undefined : mod;
  } catch {
    return undefined;
  }
}

function handlers(): BridgeCalls {
  return {
    version: () => ({
      pilothouse: PILOTHOUSE_VERSION,
      runtime: 'electron',
      versions: { electron: process.versions.electron ?? '', node: process.versions.node, chrome: process.versions.chrome ?? '' },
    }),
  };
}

async function main(): Promise<void> {
  const electron = await loadElectron();
  if (!electron) {
    process.stderr.write('pilothouse: this entry runs under Electron; use `npm start` or `pilothouse --help`\n');
    process.exitCode = 1;
    return;
  }
  const { app, BrowserWindow, ipcMain } = electron;
  const impl = handlers();
  for (const name of BRIDGE_CALLS) {
    ipcMain.handle(channelFor(name), (event) => {
      // Answer only our own window's renderer.
      if (!event.senderFrame?.url.startsWith('file://')) throw new Error('bridge call from an unexpected frame');
      return impl[name]();
    });
  }
  await app.whenReady();
  const win = new BrowserWindow({
    width: 1200,
    height: 800,
    title: 'Pilothouse',
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  // No navigation away from the console, no new windows.
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  await win.loadFile(join(import.meta.dirname, '../renderer/index.html'));
  app.on('window-all-closed', () => app.quit());
}

void main();
