import { expect, test } from './fixtures';
import { etcdctl, openView, settle, snap, waitHealthy } from './helpers';

test('snapshots: take one with progress, verify it, restore it through the guided recovery — the data is back and the cluster id is new', async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  await openView(page, 'snapshots');
  const key = `/e2e/snapshot-${Date.now()}`;
  await etcdctl('put', key, 'before');
  await etcdctl('put', `${key}/other`, 'kept');

  await page.getByTestId('take-snapshot').click();
  const job = page.getByTestId('snapshot-job');
  await expect(job).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  await expect(job).toContainText('✓ saved');
  // other specs share this web host's cluster and may have left snapshots: ours is the one the job names
  const name = (await job.locator('span.mono').last().innerText()).trim();
  expect(name).toMatch(/\.db$/);
  const row = page.locator(`[data-testid="snapshot-row"][data-name="${name}"]`);
  await expect(row).toHaveCount(1);

  await row.locator('[data-action="verify"]').click();
  await expect(row).toContainText('✓ hash ok');

  // Written after the snapshot: gone after the restore.
  await etcdctl('put', key, 'after');
  await etcdctl('put', `${key}-late`, 'late');

  const clusterBefore = await page.getByTestId('health-line').innerText();
  // Restore is the guided disaster recovery: it asks at its destructive step, naming the command
  await row.locator('[data-action="restore"]').click();
  const run = page.getByTestId('walkthrough-run');
  await expect(run).toHaveAttribute('data-kind', 'restore');
  await expect(run).toHaveAttribute('data-state', 'waiting', { timeout: 60_000 });
  const gate = run.getByTestId('walkthrough-gate');
  // the console's own stop: the SIGTERMs its supervisor sends, not the CLI's controlplane.pid
  await expect(gate).toContainText("the console's supervised processes");
  await expect(gate).not.toContainText('controlplane.pid');
  await expect(run.locator('[data-step="stop"]')).toHaveAttribute('data-state', 'pending');
  await gate.getByTestId('confirm-gate').click();
  await expect(run).toHaveAttribute('data-state', 'succeeded', { timeout: 180_000 });
  await expect(run.locator('[data-step="restore"]').getByTestId('step-verdict')).toContainText(/new cluster [0-9a-f]{1,16} at revision \d+/);
  await expect(run.getByTestId('run-figures')).toContainText('clusterId');
  await expect(run).toContainText(name);
  await waitHealthy(page, 120_000);
  await settle(page);
  await snap(page, testInfo, 'walkthroughs-restore');
  await openView(page, 'snapshots');
  await settle(page);
  await snap(page, testInfo, 'snapshots');

  expect(clusterBefore).toBeTruthy();
  expect((await etcdctl('get', key, '--print-value-only')).trim()).toBe('before');
  expect((await etcdctl('get', `${key}/other`, '--print-value-only')).trim()).toBe('kept');
  expect((await etcdctl('get', `${key}-late`, '--print-value-only')).trim()).toBe('');
});
