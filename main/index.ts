// The Electron main process entry (out/main/index.js). Electron is loaded
// dynamically: the build never needs the binary, and under plain Node (no
// Electron binary) this entry explains itself instead of crashing. The app
// itself is main/app/electronApp.ts. The import is awaited at the top level:
// Electron is not 'ready' before the entry module has finished evaluating,
// and the app registers its privileged scheme synchronously in its first
// step, which must happen before 'ready'.

import { join } from 'node:path';
import { runElectronApp } from './app/electronApp';
import { createAttachedConsoleServices, createConsoleServices } from './console/consoleServices';

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

async function main(electron: ElectronModule | undefined): Promise<void> {
  if (!electron) {
    process.stderr.write('pilothouse: this entry runs under Electron; use `npm start` or `pilothouse --help`\n');
    process.exitCode = 1;
    return;
  }
  const here = import.meta.dirname; // out/main
  const portBase = Number(process.env.PILOTHOUSE_PORT_BASE ?? 2379);
  await runElectronApp(electron, {
    rendererDir: join(here, '../renderer'),
    preloadPath: join(here, '../preload/index.cjs'),
    dataDir: process.env.PILOTHOUSE_DATA_DIR,
    portBase: Number.isInteger(portBase) ? portBase : 2379,
    // Members run this same program's CLI as Node (ELECTRON_RUN_AS_NODE=1).
    cliPath: join(here, 'cli.js'),
    createServices: (opts) => (opts.attach ? createAttachedConsoleServices({ ...opts, attach: opts.attach }) : createConsoleServices(opts)),
  });
}

// Not awaited: the app awaits 'ready', which waits for this module to finish.
main(await loadElectron()).catch((err: unknown) => {
  process.stderr.write(`pilothouse: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
