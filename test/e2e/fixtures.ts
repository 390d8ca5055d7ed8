// The `test`/`expect` every spec imports. Under the web config this is
// Playwright's own `test`, untouched. Under the Electron config a worker
// fixture launches the built app (out/main/index.js) once per worker against
// the run's data dir and member ports, and `page` is its first window: the
// specs then drive the same console through the app instead of Chromium.

import { test as base, expect, _electron, type ElectronApplication } from '@playwright/test';
import { resolve } from 'node:path';
import { requireElectronBinary } from './electronBinary';
import { e2eTarget } from './target';

/** Member ports of the Electron run (28810–28815), apart from the web run's. */
export const E2E_ELECTRON_PORT_BASE = 28810;

export function isElectron(): boolean {
  return e2eTarget() === 'electron';
}

const electronTest = base.extend<object, { electronApp: ElectronApplication }>({
  electronApp: [
    async ({}, use) => {
      const executablePath = requireElectronBinary();
      const dataDir = process.env.PILOTHOUSE_E2E_DATA_DIR;
      if (!dataDir) throw new Error('PILOTHOUSE_E2E_DATA_DIR is not set: run through test/e2e/playwright.electron.config.ts');
      const app = await _electron.launch({
        executablePath,
        args: [resolve('out/main/index.js')],
        env: { ...process.env, PILOTHOUSE_DATA_DIR: dataDir, PILOTHOUSE_PORT_BASE: String(E2E_ELECTRON_PORT_BASE) },
        timeout: 60_000,
      });
      try {
        await use(app);
      } finally {
        await app.close();
      }
    },
    { scope: 'worker', timeout: 120_000 },
  ],
  page: async ({ electronApp }, use) => {
    const win = await electronApp.firstWindow();
    await win.setViewportSize({ width: 1400, height: 900 });
    await use(win);
  },
});

export const test: typeof base = isElectron() ? (electronTest as unknown as typeof base) : base;
export { expect };
