import { expect, test } from './fixtures';
import { openView, snap } from './helpers';

test('terminal: etcdctl member list in the console shows the three members', async ({ page }, testInfo) => {
  await openView(page, 'terminal');
  const term = page.locator('.xterm').first();
  await expect(term).toBeVisible();
  const rows = page.locator('.xterm-rows').first();
  await expect(rows).toContainText(/\S/, { timeout: 20_000 }); // the shell's prompt
  await term.click();
  await page.keyboard.type('etcdctl member list\n');
  // etcdctl prints ids with %x: no leading zeros, so 1–16 hex digits.
  for (const m of ['m1', 'm2', 'm3']) await expect(rows).toContainText(new RegExp(`[0-9a-f]{1,16}, started, ${m}, `));
  await snap(page, testInfo, 'terminal');

  // A second tab, then close it: the first keeps its output.
  await page.getByTestId('new-terminal').click();
  await expect(page.getByTestId('terminal-tab-1')).toBeVisible();
  await page.getByRole('button', { name: /^Close / }).last().click();
  await expect(page.getByTestId('terminal-tab-1')).toHaveCount(0);
  await page.getByTestId('terminal-tab-0').click();
  await expect(page.locator('.xterm-rows').first()).toContainText('started, m1');
});
