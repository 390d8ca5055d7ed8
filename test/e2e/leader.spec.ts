import { expect, test } from './fixtures';
import { openView, snap, waitHealthy } from './helpers';

test('leader: kill the leader from the UI, see the new leader and the measured failover time', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  await openView(page, 'leader');
  const current = page.getByTestId('current-leader');
  await expect(current).toContainText(/m[123] leads term \d+/);
  const before = /(m[123]) leads term (\d+)/.exec(await current.innerText())!;

  await page.getByTestId('kill-leader').click();
  await page.getByRole('button', { name: /^Kill m[123]$/ }).click();
  const result = page.getByTestId('failover-result');
  await expect(result).toBeVisible({ timeout: 90_000 });
  await expect(page.getByTestId('failover-ms')).toHaveText(/^\d+(\.\d+)? (ms|s)$/);
  const newLeader = (await page.getByTestId('new-leader').innerText()).trim();
  expect(newLeader).toMatch(/^m[123]$/);
  expect(newLeader).not.toBe(before[1]);
  await expect(result).toContainText(`${before[1]} (term ${before[2]}) killed`);

  // The election shows in the header and the history.
  await expect(current).toContainText(`${newLeader} leads term`);
  await expect(page.getByTestId('leader-events').locator('tbody tr').first()).toBeVisible();
  await expect(page.getByTestId('leader-chart')).toBeVisible();
  await waitHealthy(page, 120_000); // the old leader was restarted
  await snap(page, testInfo, 'leader');
});
