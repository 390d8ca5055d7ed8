import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from './fixtures';
import { dataDir, openView, settle, snap } from './helpers';

const SETTING = 'etcd.quota-backend-bytes=4294967296';

/** The command lines of the etcd members running under the e2e data dir (from /proc). */
function memberCommandLines(): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const at = argv.findIndex((a, i) => a === 'etcd' && /cli\.js$/.test(argv[i - 1] ?? ''));
    if (at > 0 && argv.some((a) => a.includes(dataDir()))) out.push(argv.join(' '));
  }
  return out;
}

test('upgrade walkthrough: a flag-only reconfiguration from the form, planned, backed up, rehearsed on a copy, confirmed, applied member by member, reported', async ({ page }, testInfo) => {
  test.setTimeout(600_000);
  await openView(page, 'walkthroughs');
  await page.getByTestId('start-upgrade').click();
  const form = page.getByTestId('upgrade-form');
  await expect(form).toBeVisible();
  await expect(form.getByTestId('upgrade-timeout').locator('input')).toHaveValue('5m');
  await expect(form.getByTestId('upgrade-rehearse')).toHaveAttribute('aria-checked', 'true');
  await expect(form.getByTestId('upgrade-force')).toHaveAttribute('aria-checked', 'false');
  await form.getByTestId('upgrade-set').locator('textarea').fill(SETTING);
  await expect(page.locator('.n-modal')).toHaveCSS('opacity', '1');
  await snap(page, testInfo, 'upgrade-form');
  await form.getByTestId('upgrade-start').click();

  const run = page.getByTestId('walkthrough-run');
  await expect(run).toHaveAttribute('data-kind', 'upgrade');
  const step = (id: string) => run.locator(`[data-step="${id}"]`);
  await expect(step('plan')).toHaveAttribute('data-state', 'succeeded', { timeout: 60_000 });
  const planOut = step('plan').getByTestId('step-output');
  await expect(planOut).toContainText('COMPONENT');
  await expect(planOut).toContainText('--quota-backend-bytes: (unset) → 4294967296');
  await expect(step('plan').getByTestId('step-command')).toHaveText(`pilothouse upgrade plan --data-dir ${dataDir()} --set ${SETTING}`);
  // the backup step takes one unless a fresh verified one exists; the rehearsal restores it
  await expect(step('backup')).toHaveAttribute('data-state', 'succeeded', { timeout: 120_000 });
  // (the e2e host is shared: a spec before this one may have left a fresh backup)
  await expect(step('backup').getByTestId('step-verdict')).toContainText(/backup taken and verified|not needed: newest verified backup .*, taken \d+ min ago/);
  await expect(step('rehearse')).toHaveAttribute('data-state', 'succeeded', { timeout: 300_000 });
  await expect(step('rehearse').getByTestId('step-verdict')).toContainText('the rehearsal succeeded');

  // the gate names the exact live command
  await expect(run).toHaveAttribute('data-state', 'waiting');
  const gate = page.getByTestId('walkthrough-gate');
  await expect(gate).toContainText(`pilothouse upgrade apply --data-dir ${dataDir()} --set ${SETTING} --timeout 5m`);
  await expect(gate).toContainText(`pilothouse upgrade rollback --data-dir ${dataDir()} undoes the rest`);
  await settle(page);
  await snap(page, testInfo, 'upgrade-gate');
  await page.getByTestId('confirm-gate').click();

  await expect(run).toHaveAttribute('data-state', 'succeeded', { timeout: 400_000 });
  for (const id of ['apply', 'm1', 'm2', 'm3', 'apiserver', 'controllers', 'nodes', 'migrate', 'report']) await expect(step(id)).toHaveAttribute('data-state', 'succeeded');
  for (const id of ['m1', 'm2', 'm3']) await expect(step(id).getByTestId('step-verdict')).toContainText(`${id} is back on its target`);
  await expect(step('apiserver').getByTestId('step-verdict')).toContainText('already ran its target');
  await expect(step('migrate').getByTestId('step-verdict')).toContainText('skipped: no flag change alters how objects are stored');
  await expect(step('report').getByTestId('step-verdict')).toContainText('upgrade complete');
  await expect(step('report').getByTestId('step-output')).toContainText('longest unavailability');
  const figures = run.getByTestId('run-figures');
  for (const f of ['etcdLongestUnavailableMs', 'apiServerLongestUnavailableMs', 'writesFailed', 'writesLost']) await expect(figures).toContainText(f);
  await settle(page);
  await snap(page, testInfo, 'upgrade-done');
  // the page is taller than a full-page shot holds: the plan and the report on their own
  await step('plan').screenshot({ path: 'test/e2e/screenshots/upgrade-plan.png' });
  await step('report').screenshot({ path: 'test/e2e/screenshots/upgrade-report.png' });

  // every member now runs with the new flag
  const lines = memberCommandLines();
  expect(lines).toHaveLength(3);
  for (const l of lines) expect(l).toMatch(/--quota-backend-bytes[= ]4294967296/);
});
