import { expect, test } from './fixtures';
import { openView, snap } from './helpers';

test('overview: health line, topology with one leader, processes; keyboard navigation and dark theme', async ({ page }, testInfo) => {
  await openView(page, 'overview');
  const health = page.getByTestId('health-line');
  await expect(health).toContainText(/healthy: 3\/3 members, leader m[123] \(term \d+\)/);

  const topo = page.getByTestId('topology');
  for (const m of ['m1', 'm2', 'm3']) await expect(topo.locator(`[data-node="${m}"]`)).toHaveAttribute('data-state', 'healthy');
  await expect(topo.getByText('★ leader')).toHaveCount(1);
  const rows = page.getByTestId('components-table').locator('tbody tr');
  await expect(rows.filter({ hasText: 'etcd' }).filter({ hasText: 'running' })).toHaveCount(3);
  // Every supervised process (members, and the API server once the control plane runs one) is running.
  await expect(rows.filter({ hasNotText: 'running' })).toHaveCount(0);
  // The simulated nodes, read through the API server: registered and Ready.
  const nodes = page.getByTestId('nodes-table').locator('tbody tr');
  await expect(nodes).toHaveCount(3, { timeout: 60_000 });
  await expect(nodes.filter({ hasText: 'Ready' }).filter({ hasNotText: 'Unknown' })).toHaveCount(3, { timeout: 60_000 });
  await expect(health).toContainText('3/3 nodes Ready');
  await snap(page, testInfo, 'overview');

  // Keyboard: "g m" goes to Members, "1" back to Overview, "?" opens the help.
  await page.locator('body').press('g');
  await page.locator('body').press('m');
  await expect(page).toHaveURL(/#\/members$/);
  await page.locator('body').press('1');
  await expect(page).toHaveURL(/#\/overview$/);
  await page.locator('body').press('?');
  await expect(page.getByText('Keyboard shortcuts').last()).toBeVisible();
  await page.locator('body').press('Escape');

  // Theme toggle: auto(light) → dark; state stays readable (badge still has its icon and word).
  await page.getByTestId('theme-toggle').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(health).toContainText('✓');
  await snap(page, testInfo, 'overview-dark');
  await page.getByTestId('theme-toggle').click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
});
