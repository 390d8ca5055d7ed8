import { expect, test } from '@playwright/test';
import { kubectl, openView, snap } from './helpers';

test('admission log: traced API requests with their stages, or an explained empty state without an API server', async ({ page }, testInfo) => {
  await openView(page, 'admission');
  const view = page.getByTestId('view-admission');
  const rows = page.getByTestId('trace-row');
  // The control plane runs an API server once the apiserver component is supervised.
  await page.goto(page.url().replace('#/admission', '#/overview'));
  const hasApiserver = (await page.getByTestId('components-table').locator('tbody tr', { hasText: 'apiserver' }).count()) > 0;
  await page.goto(page.url().replace('#/overview', '#/admission'));
  if (!hasApiserver) {
    await expect(page.getByTestId('view-empty')).toContainText('No API requests traced yet.');
    await expect(rows).toHaveCount(0);
  } else {
    const ns = `e2e-${Date.now()}`;
    await kubectl('create', 'namespace', ns);
    await kubectl('get', 'namespaces');
    await expect(rows.filter({ hasText: ns }).first()).toBeVisible({ timeout: 60_000 });
    await expect(rows.filter({ hasText: 'list' }).first()).toBeVisible();
    await rows.first().getByRole('button').click();
    await expect(view.locator('.stages li').first()).toBeVisible();
  }
  await snap(page, testInfo, 'admission');
});
