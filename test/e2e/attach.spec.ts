// The cluster switcher end to end: beside the run's lab, three Debian etcd
// 3.4 members with mutual TLS (ports 26720–26725). The user adds them in the
// Add-connection dialog (endpoints and the CA/cert/key paths, read-only),
// switches to them, sees their three members in the Members view (names,
// ids, the leader, versions 3.4.x, DB sizes) with every action that changes
// the cluster disabled and the read-only hint, then switches back to the lab.
// Run it with the web host on 26740 and the lab on 26742–26748:
//   PILOTHOUSE_E2E_WEB_PORT=26740 PILOTHOUSE_E2E_PORT_BASE=26742 npx playwright test test/e2e/attach.spec.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { LocalCluster } from '../../main/controlplane/localCluster';
import { expect, test } from './fixtures';
import { openView, settle, snap, waitHealthy } from './helpers';

const DEBIAN_BASE = 26720;
const NAME = 'debian-3.4';
const dir = mkdtempSync(join(tmpdir(), 'pilothouse-e2e-attach-'));
let debian: LocalCluster;

test.beforeAll(async () => {
  debian = new LocalCluster({ dataDir: dir, portBase: DEBIAN_BASE, program: { command: '/usr/bin/etcd', args: [] }, clusterToken: `e2e-${DEBIAN_BASE}`, tls: true });
  await debian.start();
  const ready = await debian.waitReady(60_000);
  if (!ready.ok) throw new Error(`Debian etcd on ${DEBIAN_BASE} not ready: ${[...ready.lastErrors].map(([e, m]) => `${e} ${m}`).join('; ')}`);
});

test.afterAll(async () => {
  debian?.killAll();
  await Promise.all([...(debian?.members.values() ?? [])].map((m) => m.waitExit()));
  rmSync(dir, { recursive: true, force: true });
});

/** The switcher's open menu (teleported to the body; the selected value renders the same label). */
const menu = (page: Page) => page.locator('.n-base-select-menu');

async function switchTo(page: Page, name: string): Promise<void> {
  await page.getByTestId('cluster-select').click();
  await menu(page).getByTestId(`conn-option-${name}`).click();
}

test('attach: add the Debian etcd 3.4 cluster in the dialog, switch to it read-only, and back to the lab', async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  await openView(page, 'members');
  await expect(page.getByTestId('cluster-select')).toContainText('lab (embedded)');

  // the dialog: endpoints and the TLS files by path, read-only
  const pki = debian.pki!;
  await page.getByTestId('add-connection').click();
  const dialog = page.getByTestId('connection-dialog');
  await expect(dialog).toBeVisible();
  await dialog.getByTestId('conn-name').locator('input').fill(NAME);
  await dialog.getByTestId('conn-endpoints').locator('input').fill(debian.layout.map((m) => m.clientUrl).join(','));
  await dialog.getByTestId('conn-cacert').locator('input').fill(pki.ca.cert);
  await dialog.getByTestId('conn-cert').locator('input').fill(pki.client.cert);
  await dialog.getByTestId('conn-key').locator('input').fill(pki.client.key);
  await expect(dialog.getByTestId('conn-writable')).toHaveAttribute('aria-checked', 'false');
  await expect(dialog.getByTestId('conn-save-switch')).toBeEnabled();
  await settle(page);
  await snap(page, testInfo, 'attach-dialog');
  await dialog.getByTestId('conn-save-switch').click();

  // the page reloads on the new cluster: its members, at their own ports
  const card = (n: string) => page.getByTestId(`member-${n}`);
  await expect(card('m1')).toContainText(`127.0.0.1:${DEBIAN_BASE}`, { timeout: 90_000 });
  await expect(page.getByTestId('cluster-select')).toContainText(NAME);
  await waitHealthy(page);
  const cards = page.locator('[data-testid^="member-m"]');
  await expect(cards).toHaveCount(3);
  await expect(page.locator('[data-testid^="member-m"][data-leader="true"]')).toHaveCount(1);
  for (const [i, n] of ['m1', 'm2', 'm3'].entries()) {
    const c = card(n);
    await expect(c.locator('h3')).toHaveText(n);
    await expect(c).toContainText(`https://127.0.0.1:${DEBIAN_BASE + 2 * i}`);
    await expect(c).toContainText(/Member id\s*[0-9a-f]{16}/);
    await expect(c).toContainText(/Version\s*3\.4\.\d+/);
    await expect(c).toContainText(/DB size \/ in use\s*[\d.]+ (B|KiB|MiB)/);
    await expect(c).toContainText('✓ healthy');
    // every action that changes the cluster is disabled, the wrapper says why
    for (const action of ['stop', 'kill', 'restart', 'pause', 'make-leader', 'defrag']) {
      const button = c.locator(`[data-action="${action}"]`);
      if ((await button.count()) === 0) continue;
      await expect(button, `${n} ${action}`).toBeDisabled();
      await expect(button.locator('xpath=..')).toHaveAttribute('title', /Read-only: debian-3\.4 is attached read-only/);
    }
  }
  await expect(page.getByTestId('read-only-hint')).toContainText('Actions that change the cluster are disabled');
  await settle(page);
  await snap(page, testInfo, 'attach-members');

  // the switcher lists both, with their badges
  await page.getByTestId('cluster-select').click();
  await expect(menu(page).getByTestId(`conn-option-${NAME}`).locator('[data-badge]')).toHaveAttribute('data-badge', 'read-only');
  await expect(menu(page).getByTestId('conn-option-lab (embedded)').locator('[data-badge]')).toHaveAttribute('data-badge', 'writable');
  await settle(page);
  await snap(page, testInfo, 'attach-switcher');
  await page.keyboard.press('Escape');

  // the kill-the-leader experiment is disabled too
  await openView(page, 'leader', { healthy: false });
  await expect(page.getByTestId('kill-leader')).toBeDisabled();

  // back to the lab: its own members again, the actions enabled
  await openView(page, 'members', { healthy: false });
  await switchTo(page, 'lab (embedded)');
  await expect(page.getByTestId('cluster-select')).toContainText('lab (embedded)', { timeout: 90_000 });
  await waitHealthy(page, 120_000);
  await expect(card('m1')).not.toContainText(`127.0.0.1:${DEBIAN_BASE}`);
  await expect(page.getByTestId('read-only-hint')).toHaveCount(0);
  await expect(page.locator('[data-testid^="member-m"][data-leader="false"]').first().locator('[data-action="defrag"]')).toBeEnabled({ timeout: 30_000 });
  await settle(page);
  await snap(page, testInfo, 'attach-back-to-lab');
});
