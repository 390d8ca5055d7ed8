import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from '@playwright/test';
import { writeLauncherPage } from '../../main/web/launcherPage';
import { expect, isElectron, test } from './fixtures';
import { consoleOrigin, consoleToken, consoleUrl, snap, waitHealthy } from './helpers';

/** The page globals used below (the e2e sources are type-checked without the DOM library). */
interface PageGlobals {
  location: { host: string; href: string };
  sessionStorage: { getItem(key: string): string | null };
  WebSocket: new (url: string, protocols: string[]) => { protocol: string; onopen: (() => void) | null; onerror: (() => void) | null; close(): void };
}

/** Opens a WebSocket to /bridge from inside the page, offering `protocols`; 'open' or 'refused'. */
function tryBridge(page: Page, protocols: string[]): Promise<string> {
  return page.evaluate(
    (p) =>
      new Promise<string>((resolve) => {
        const w = globalThis as unknown as PageGlobals;
        const ws = new w.WebSocket(`ws://${w.location.host}/bridge`, p);
        ws.onopen = () => {
          resolve(`open ${ws.protocol}`);
          ws.close();
        };
        ws.onerror = () => resolve('refused');
      }),
    protocols,
  );
}

test.describe('web host authentication', () => {
  // The token guards the web host's bridge WebSocket; the Electron app loads
  // its console from its own protocol and talks over IPC, with no listener
  // and no token to check.
  test.skip(isElectron(), 'web host only: the Electron app serves no HTTP and has no token');

  test('without the token the page and assets load but get no data, and the bridge refuses the socket', async ({ browser }, testInfo) => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    const res = await page.goto(`${consoleOrigin()}/`);
    expect(res?.status()).toBe(200);
    const html = await res!.text();
    const asset = /<script[^>]+src="\.?\/?(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset, 'the page names its entry script').toBeTruthy();
    expect((await page.request.get(`${consoleOrigin()}/${asset}`)).status()).toBe(200);
    await expect(page.getByRole('alert')).toContainText('No console bridge');
    await expect(page.getByTestId('health-line')).toHaveAttribute('data-health', 'unknown');
    expect(sockets, 'no token: the page does not even try the bridge').toEqual([]);
    expect(await tryBridge(page, [])).toBe('refused');
    expect(await tryBridge(page, ['pilothouse.bridge'])).toBe('refused');
    expect(await tryBridge(page, ['pilothouse.bridge', 'pilothouse.token.not-the-token'])).toBe('refused');
    await snap(page, testInfo, 'auth-no-token');
    await ctx.close();
  });

  test('the fragment URL opens the console; the token leaves the address bar and history, and no cookie is set', async ({ browser }) => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const token = consoleToken();
    const res = await page.goto(consoleUrl());
    expect(res?.status()).toBe(200);
    // The fragment is never sent: the request the host saw was for "/".
    expect(new URL(res!.url()).hash).toBe('');
    await waitHealthy(page);
    expect(page.url()).toBe(`${consoleOrigin()}/#/overview`);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).location.href)).not.toContain(token);
    const cdp = await ctx.newCDPSession(page);
    const history = (await cdp.send('Page.getNavigationHistory')) as { entries: { url: string }[] };
    expect(history.entries.length).toBeGreaterThan(0);
    for (const entry of history.entries) expect(entry.url).not.toContain(token);
    expect(await ctx.cookies()).toEqual([]);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.getItem('pilothouse.token'))).toBe(token);
    // The page's own socket offered the token as a subprotocol; the host selected only the bridge's.
    expect(await tryBridge(page, ['pilothouse.bridge', `pilothouse.token.${token}`])).toBe('open pilothouse.bridge');
    // A reload finds the token in the tab's sessionStorage.
    await page.reload();
    await waitHealthy(page);
    expect(page.url()).not.toContain(token);
    await ctx.close();
  });

  test('the launcher page the host hands to the opener leads to the console, and the token is taken', async ({ browser }) => {
    const dir = mkdtempSync(join(tmpdir(), 'pilothouse-e2e-launcher-'));
    const ctx = await browser.newContext();
    try {
      const page = await ctx.newPage();
      await page.goto(pathToFileURL(writeLauncherPage(dir, consoleUrl())).href);
      await page.waitForURL(`${consoleOrigin()}/#/overview`);
      await waitHealthy(page);
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.getItem('pilothouse.token'))).toBe(consoleToken());
      const history = (await (await ctx.newCDPSession(page)).send('Page.getNavigationHistory')) as { entries: { url: string }[] };
      for (const entry of history.entries) expect(entry.url).not.toContain(consoleToken());
    } finally {
      await ctx.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
