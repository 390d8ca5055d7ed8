// End-to-end tests of the console in Debian's Chromium against a real web
// host (`pilothouse web`) running a real embedded control plane. One host for
// the whole run (global setup starts it, its teardown stops it by PID); specs
// run one at a time because several of them break the cluster on purpose.
// Build first: `npm run build && npx playwright test`.

import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '*.spec.ts',
  globalSetup: './test/e2e/globalSetup.ts',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 30_000 },
  reporter: [['list']],
  outputDir: 'test-results/e2e',
  use: {
    viewport: { width: 1400, height: 900 },
    colorScheme: 'light',
    actionTimeout: 20_000,
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
