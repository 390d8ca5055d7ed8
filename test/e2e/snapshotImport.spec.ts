import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { etcdctl, etcdctlEnv, kubectl, openView, settle, snap } from './helpers';

// Import a snapshot through the web host's path field (the web host has no
// native dialog), then boot the embedded cluster from it through the guided
// restore: after its confirm gate the cluster serves the snapshot's state.
test('snapshots: a snapshot imported by path boots the cluster through the guided restore', async ({ page }, testInfo) => {
  test.setTimeout(300_000);
  const scratch = mkdtempSync(join(tmpdir(), 'pilothouse-e2e-import-'));
  try {
    const stamp = Date.now();
    await etcdctl('put', `/e2e/import-before-${stamp}`, 'in the snapshot');
    const file = join(scratch, 'outside.db');
    // etcdctl snapshot save asks one member
    const env = etcdctlEnv();
    execFileSync('/usr/bin/etcdctl', ['snapshot', 'save', file], { env: { ...process.env, ...env, ETCDCTL_API: '3', ETCDCTL_ENDPOINTS: env.ETCDCTL_ENDPOINTS!.split(',')[0]! }, timeout: 30_000, stdio: 'ignore' });
    await etcdctl('put', `/e2e/import-after-${stamp}`, 'made later');

    await openView(page, 'snapshots');
    const panel = page.getByTestId('snapshot-import');
    await expect(panel.getByTestId('import-choose')).toHaveCount(0); // no dialog on the web host
    await panel.getByTestId('import-path').locator('input').fill('not/absolute.db');
    await panel.getByTestId('import-submit').click();
    await expect(panel.getByTestId('import-error')).toContainText('absolute path');
    await panel.getByTestId('import-path').locator('input').fill(file);
    await panel.getByTestId('import-submit').click();
    const done = panel.getByTestId('import-done');
    await expect(done).toContainText('Imported');
    await expect(done).toContainText('live keys');
    await expect(done).toContainText(file);
    const name = (await done.getAttribute('data-name'))!;
    const row = page.locator(`[data-testid="snapshot-row"][data-name="${name}"]`);
    await expect(row).toContainText('✓ hash ok');
    await row.locator('[data-action="expand"]').click();
    await expect(page.locator(`[data-testid="snapshot-facts"][data-name="${name}"]`).getByTestId('imported-from')).toContainText(file);
    await settle(page);
    await snap(page, testInfo, 'snapshots-imported');

    await done.getByTestId('import-boot').click();
    await expect(page.getByTestId('view-walkthroughs')).toBeVisible();
    const run = page.getByTestId('walkthrough-run');
    await expect(run).toHaveAttribute('data-kind', 'restore');
    await expect(run).toHaveAttribute('data-state', 'waiting', { timeout: 60_000 });
    // the console's own stop, not the CLI's controlplane.pid
    await expect(run.locator('[data-step="stop"]').getByTestId('step-command')).toContainText("the console's supervised processes");
    await settle(page);
    await snap(page, testInfo, 'walkthroughs-import-gate');
    await run.getByTestId('confirm-gate').click();
    await expect(run).toHaveAttribute('data-state', 'succeeded', { timeout: 240_000 });
    await expect(page.getByTestId('health-line')).toHaveAttribute('data-health', 'healthy', { timeout: 60_000 });
    expect((await etcdctl('get', `/e2e/import-before-${stamp}`, '--print-value-only')).trim()).toBe('in the snapshot');
    expect((await etcdctl('get', `/e2e/import-after-${stamp}`, '--print-value-only')).trim()).toBe('');
    expect(await kubectl('get', 'namespaces', '-o', 'name')).toContain('namespace/default');
    await settle(page);
    await snap(page, testInfo, 'walkthroughs-import-restored');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
