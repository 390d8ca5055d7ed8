import { expect, isElectron, test } from './fixtures';
import { consoleUrl, snap } from './helpers';

test.describe('web host authentication', () => {
  // The token guards the web host's HTTP listener; the Electron app loads
  // its console from disk over IPC, with no listener and no token to check.
  test.skip(isElectron(), 'web host only: the Electron app serves no HTTP and has no token');
  test('without the token the page is 401; with it the console loads', async ({ browser }, testInfo) => {
    const origin = new URL(consoleUrl()).origin;
    // A fresh context: no cookie from an earlier tokened visit.
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    for (const path of ['/', '/index.html', '/?token=not-the-token']) {
      const res = await page.goto(origin + path);
      expect(res?.status(), path).toBe(401);
    }
    await expect(page.locator('body')).not.toContainText('Pilothouse');
    await snap(page, testInfo, 'auth-401');

    const ok = await page.goto(consoleUrl());
    expect(ok?.status()).toBe(200);
    await expect(page.getByTestId('health-line')).toBeVisible();
    await ctx.close();
  });
});
