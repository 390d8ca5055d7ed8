import { expect, test } from './fixtures';
import { etcdctl, openView, settle, snap } from './helpers';

test('walkthroughs: a guided backup runs end to end, shows every step and leaves a report; the Snapshots view shows what it verified', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  await etcdctl('put', `/e2e/walkthrough-${Date.now()}`, 'backed up');
  await openView(page, 'walkthroughs');
  await page.getByTestId('start-backup').click();
  const run = page.getByTestId('walkthrough-run');
  await expect(run).toHaveAttribute('data-kind', 'backup');
  await expect(run).toHaveAttribute('data-state', 'succeeded', { timeout: 120_000 });
  const steps = run.getByTestId('walkthrough-step');
  await expect(steps).toHaveCount(4);
  for (const s of await steps.all()) await expect(s).toHaveAttribute('data-state', 'succeeded');
  // each step says what it runs: the snapshot step names etcdctl snapshot save and the file
  const snapshot = run.locator('[data-step="snapshot"]');
  await expect(snapshot.getByTestId('step-command')).toContainText('etcdctl --endpoints=');
  await expect(snapshot.getByTestId('step-command')).toContainText('snapshot save');
  await expect(snapshot.getByTestId('step-progress')).toBeVisible();
  await expect(snapshot.getByTestId('step-verdict')).toContainText('Snapshot saved at');
  await expect(run.locator('[data-step="verify"]').getByTestId('step-output')).toContainText('integrity: ok');
  const figures = run.getByTestId('run-figures');
  await expect(figures).toContainText('revision');
  await expect(figures).toContainText('/registry/namespaces');

  const id = (await run.getAttribute('data-run'))!;
  const row = page.locator(`[data-testid="history-row"][data-run="${id}"]`);
  await expect(row).toHaveAttribute('data-state', 'succeeded');
  await row.locator('[data-action="report"]').click();
  const report = page.getByTestId('walkthrough-report');
  await expect(report).toContainText('# Back up etcd');
  await expect(report).toContainText('Result: **succeeded**');
  await expect(report).toContainText(`walkthroughs/${id}/report.md`);
  await page.keyboard.press('Escape');
  await expect(report).toBeHidden();
  await settle(page);
  await snap(page, testInfo, 'walkthroughs');

  // the file it stored, with its verification, in the Snapshots view
  const file = (await snapshot.getByTestId('step-verdict').innerText()).match(/Snapshot saved at (\S+):/)![1]!;
  const name = file.split('/').pop()!;
  await openView(page, 'snapshots');
  const snapRow = page.locator(`[data-testid="snapshot-row"][data-name="${name}"]`);
  await expect(snapRow).toContainText('✓ verified at backup');
  await expect(snapRow.getByTestId('last-drill')).toHaveAttribute('data-verdict', 'none');
  await snapRow.locator('[data-action="expand"]').click();
  const facts = page.locator(`[data-testid="snapshot-facts"][data-name="${name}"]`);
  await expect(facts).toContainText('integrity ok');
  await expect(facts).toContainText('/registry/namespaces');

  // scheduled backups: k3s's defaults, editable
  const schedule = page.getByTestId('backup-schedule');
  await expect(schedule.getByTestId('schedule-cron')).toHaveText('0 */12 * * *');
  await expect(schedule.getByTestId('schedule-keep')).toHaveText('5');
  await expect(schedule).toContainText('next');
  await schedule.getByTestId('schedule-edit').click();
  await schedule.getByTestId('schedule-cron-input').locator('input').fill('every day');
  await schedule.getByTestId('schedule-save').click();
  await expect(schedule.getByTestId('schedule-error')).toBeVisible();
  await schedule.getByTestId('schedule-cron-input').locator('input').fill('30 2 * * *');
  await schedule.getByTestId('schedule-keep-input').locator('input').fill('3');
  await schedule.getByTestId('schedule-save').click();
  await expect(schedule.getByTestId('schedule-cron')).toHaveText('30 2 * * *');
  await expect(schedule.getByTestId('schedule-keep')).toHaveText('3');
  await expect(schedule.getByTestId('schedule-error')).toBeHidden();
});

test('walkthroughs: a drill started from a snapshot reports "restorable" and the snapshot shows its last drill', async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  await openView(page, 'snapshots');
  const rows = page.locator('[data-testid="snapshot-row"]');
  await expect(rows.first()).toBeVisible();
  // the newest snapshot with metadata: the guided backup's
  const row = page.locator('[data-testid="snapshot-row"]:has([data-action="expand"])').first();
  const name = (await row.getAttribute('data-name'))!;
  await row.locator('[data-action="drill"]').click();
  await expect(page.getByTestId('view-walkthroughs')).toBeVisible();
  const run = page.getByTestId('walkthrough-run');
  await expect(run).toHaveAttribute('data-kind', 'drill');
  await expect(run).toHaveAttribute('data-state', 'succeeded', { timeout: 200_000 });
  await expect(run).toContainText('restorable');
  await expect(run.getByTestId('run-figures')).toContainText('rto');
  await settle(page);
  await snap(page, testInfo, 'walkthroughs-drill');

  await openView(page, 'snapshots');
  const drilled = page.locator(`[data-testid="snapshot-row"][data-name="${name}"]`).getByTestId('last-drill');
  await expect(drilled).toHaveAttribute('data-verdict', 'restorable');
  await expect(drilled).toContainText('RTO');
  await page.locator(`[data-testid="snapshot-row"][data-name="${name}"] [data-action="expand"]`).click();
  await settle(page);
  await snap(page, testInfo, 'snapshots-verified');
});

test('walkthroughs: a guided restore cancelled at its confirmation stops nothing and ends cancelled', async ({ page }) => {
  test.setTimeout(120_000);
  const key = `/e2e/untouched-${Date.now()}`;
  await etcdctl('put', key, 'live');
  // a snapshot to restore from (this test runs alone too)
  await openView(page, 'snapshots');
  await page.getByTestId('take-snapshot').click();
  await expect(page.getByTestId('snapshot-job')).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  await openView(page, 'walkthroughs');
  await page.getByTestId('start-restore').click();
  const run = page.getByTestId('walkthrough-run');
  await expect(run).toHaveAttribute('data-kind', 'restore');
  await expect(run).toHaveAttribute('data-state', 'waiting', { timeout: 60_000 });
  await expect(page.getByTestId('run-pause')).toBeDisabled();
  await run.getByTestId('refuse-gate').click();
  await expect(run).toHaveAttribute('data-state', 'cancelled');
  await expect(run.getByTestId('run-reason')).toContainText('cancelled before step 3');
  await expect(run.locator('[data-step="stop"]')).toHaveAttribute('data-state', 'skipped');
  await expect(page.getByTestId('health-line')).toHaveAttribute('data-health', 'healthy');
  expect((await etcdctl('get', key, '--print-value-only')).trim()).toBe('live');
  await expect(page.getByTestId('run-report')).toBeVisible();
});
