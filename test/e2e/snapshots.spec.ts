import { expect, test } from './fixtures';
import { etcdctl, openView, snap, waitHealthy } from './helpers';

test('snapshots: take one with progress, verify it, restore it — the data is back and the cluster id is new', async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  await openView(page, 'snapshots');
  const key = `/e2e/snapshot-${Date.now()}`;
  await etcdctl('put', key, 'before');
  await etcdctl('put', `${key}/other`, 'kept');

  await page.getByTestId('take-snapshot').click();
  const job = page.getByTestId('snapshot-job');
  await expect(job).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  await expect(job).toContainText('✓ saved');
  const rows = page.getByTestId('snapshot-row');
  await expect(rows).toHaveCount(1);
  const row = rows.first();
  const name = (await row.getAttribute('data-name'))!;

  await row.locator('[data-action="verify"]').click();
  await expect(row).toContainText('✓ hash ok');

  // Written after the snapshot: gone after the restore.
  await etcdctl('put', key, 'after');
  await etcdctl('put', `${key}-late`, 'late');

  const clusterBefore = await page.getByTestId('health-line').innerText();
  await row.locator('[data-action="restore"]').click();
  await page.locator('.n-dialog').getByRole('button', { name: 'Restore', exact: true }).click();
  const done = page.getByTestId('restore-done');
  await expect(done).toBeVisible({ timeout: 180_000 });
  await expect(page.getByTestId('restore-cluster-id')).toHaveText(/^[0-9a-f]{1,16}$/);
  await expect(page.getByTestId('restore-progress')).toContainText(name);
  await waitHealthy(page, 120_000);
  await snap(page, testInfo, 'snapshots');

  expect(clusterBefore).toBeTruthy();
  expect((await etcdctl('get', key, '--print-value-only')).trim()).toBe('before');
  expect((await etcdctl('get', `${key}/other`, '--print-value-only')).trim()).toBe('kept');
  expect((await etcdctl('get', `${key}-late`, '--print-value-only')).trim()).toBe('');
});
