// The same e2e specs as playwright.config.ts, driven through the Electron app
// (Playwright's Electron support) instead of the web host in Chromium:
// `npx playwright test -c test/e2e/playwright.electron.config.ts` after
// `npm run build`. Needs the Electron binary; without it the run stops at
// global setup with "Electron binary not installed: ...". Specs that only
// make sense for the web host (its token/401 check) skip themselves here.

import { defineConfig } from '@playwright/test';

// Read by test/e2e/target.ts; set at load so the runner and every worker
// (each loads this config) see it before any spec imports fixtures.ts.
process.env.PILOTHOUSE_E2E_TARGET = 'electron';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  globalSetup: './electronGlobalSetup.ts',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 30_000 },
  reporter: [['list']],
  outputDir: '../../test-results/e2e-electron',
  use: { actionTimeout: 20_000 },
});
