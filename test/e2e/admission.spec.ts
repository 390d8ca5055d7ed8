import { expect, test } from './fixtures';
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
    // Health probes are hidden by default; the create and the list are there, newest first.
    const create = rows.filter({ hasText: 'create' }).filter({ hasText: 'namespaces' }).first();
    await expect(create).toBeVisible({ timeout: 60_000 });
    await expect(create).toContainText('✓ allowed');
    await expect(rows.filter({ hasText: 'list' }).filter({ hasText: 'namespaces' }).first()).toBeVisible();
    await expect(rows.filter({ hasText: '/readyz' })).toHaveCount(0);
    // New traces (lease renewals every 2 s) are prepended while we click: on a
    // loaded machine a row can move between being located and being clicked,
    // and the click lands on a neighbour. Click until this row is expanded.
    const expand = create.getByRole('button');
    await expect(async () => {
      if ((await expand.getAttribute('aria-expanded')) !== 'true') await expand.click();
      await expect(expand).toHaveAttribute('aria-expanded', 'true', { timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    await expect(view.locator('.stages li').first()).toBeVisible();
    await expect(view.locator('.stages')).toContainText('authentication');
  }
  await snap(page, testInfo, 'admission');
});
