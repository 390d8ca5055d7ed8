// Which host the e2e specs drive: the web host in Chromium (playwright.config.ts,
// the default) or the Electron app (test/e2e/playwright.electron.config.ts sets
// PILOTHOUSE_E2E_TARGET=electron when it loads, in the runner and every worker).

export type E2ETarget = 'web' | 'electron';

export function e2eTarget(env: Record<string, string | undefined> = process.env): E2ETarget {
  const v = env.PILOTHOUSE_E2E_TARGET;
  if (v === undefined || v === '' || v === 'web') return 'web';
  if (v === 'electron') return 'electron';
  throw new Error(`PILOTHOUSE_E2E_TARGET must be web or electron, not ${JSON.stringify(v)}`);
}
