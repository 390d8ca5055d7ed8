// What every console spec needs: the tokened URL of the run's web host,
// opening a view and waiting for a healthy cluster, screenshots (attached to
// the report and written to test/e2e/screenshots/<name>.png for review), and
// etcdctl against the embedded cluster with the env file the console writes.

import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, type Page, type TestInfo } from '@playwright/test';
import { e2eTarget } from './target';

const run = promisify(execFile);

export function consoleUrl(): string {
  const url = process.env.PILOTHOUSE_E2E_URL;
  if (!url) throw new Error('PILOTHOUSE_E2E_URL is not set: run the specs through playwright.config.ts (its global setup starts the web host)');
  return url;
}

/** The console's origin (http://127.0.0.1:PORT): its pages and assets need no token. */
export function consoleOrigin(): string {
  return new URL(consoleUrl()).origin;
}

/** The token the run's host printed (in its URL's fragment). */
export function consoleToken(): string {
  return new URL(consoleUrl()).hash.slice('#token='.length);
}

function onConsole(page: Page): boolean {
  try {
    return new URL(page.url()).origin === consoleOrigin();
  } catch {
    return false;
  }
}

export function dataDir(): string {
  return process.env.PILOTHOUSE_E2E_DATA_DIR!;
}

/** Opens a view by its route and waits until the header reports the cluster healthy. */
export async function openView(page: Page, view: string, opts: { healthy?: boolean } = {}): Promise<void> {
  // A page not yet on the console opens the tokened URL first: its #token=
  // fragment is the whole URL's hash, so it cannot carry a route as well; the
  // renderer moves the token into the tab's sessionStorage. Then (and always
  // in the Electron app, whose window refuses navigations) route inside the
  // page through the console's own hash router.
  if (e2eTarget() === 'web' && !onConsole(page)) await page.goto(consoleUrl());
  await page.evaluate((v) => {
    (globalThis as unknown as { location: { hash: string } }).location.hash = `#/${v}`;
  }, view);
  await expect(page.getByTestId(`view-${view}`)).toBeVisible();
  if (opts.healthy !== false) await waitHealthy(page);
}

export async function waitHealthy(page: Page, timeout = 90_000): Promise<void> {
  await expect(page.getByTestId('health-line')).toHaveAttribute('data-health', 'healthy', { timeout });
}

/**
 * Before a screenshot: no transition or progress animation still running, and
 * the window as tall as the view (the shell scrolls inside, so a full-page
 * screenshot would show only what fits).
 */
export async function settle(page: Page): Promise<void> {
  // the page's globals typed by hand: this file compiles without the DOM's types
  type Doc = {
    getAnimations(): { playState: string }[];
    querySelector(sel: string): { scrollTo(x: number, y: number): void; scrollHeight: number; clientHeight: number } | null;
  };
  const still = () => (globalThis as unknown as { document: Doc }).document.getAnimations().every((a) => a.playState !== 'running');
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.waitForFunction(still);
  const height = await page.evaluate(() => {
    const d = (globalThis as unknown as { document: Doc }).document;
    const c = d.querySelector('.content');
    c?.scrollTo(0, 0);
    return (c?.scrollHeight ?? 0) + (d.querySelector('.header')?.clientHeight ?? 0);
  });
  await page.setViewportSize({ width: 1400, height: Math.min(4000, Math.max(900, height + 8)) });
  await page.waitForFunction(still);
}

export async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  // The Electron run keeps its own set, so it never overwrites the web host's.
  const dir = resolve(e2eTarget() === 'electron' ? 'test/e2e/screenshots/electron' : 'test/e2e/screenshots');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}

/** `export K=V` lines of DIR/etcdctl.env. */
export function etcdctlEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(join(dataDir(), 'etcdctl.env'), 'utf8').split('\n')) {
    const m = /^export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (!m) continue;
    let v = m[2];
    if (v.startsWith("'") && v.endsWith("'")) v = v.slice(1, -1).replace(/'\\''/g, "'");
    env[m[1]] = v;
  }
  return env;
}

export async function etcdctl(...args: string[]): Promise<string> {
  const { stdout } = await run('/usr/bin/etcdctl', args, { env: { ...process.env, ...etcdctlEnv(), ETCDCTL_API: '3' }, timeout: 30_000 });
  return stdout;
}

export async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run('/usr/bin/kubectl', ['--kubeconfig', join(dataDir(), 'kubeconfig'), ...args], { timeout: 30_000 });
  return stdout;
}

/** Picks an option of a naive-ui select (its menu is teleported to the body; match the option's exact text). */
export async function choose(page: Page, testId: string, label: string): Promise<void> {
  await page.getByTestId(testId).click();
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await page.locator('.n-base-select-option').filter({ hasText: new RegExp(`^${escaped}$`) }).click();
}
