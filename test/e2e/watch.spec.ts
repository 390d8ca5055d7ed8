import { expect, test } from './fixtures';
import { choose, etcdctl, openView, snap } from './helpers';

test('watch events: live puts appear, filters narrow them, the detail pane diffs against the previous value', async ({ page }, testInfo) => {
  await openView(page, 'watch');
  const prefix = `/e2e/watch-${Date.now()}/`;
  for (let i = 0; i < 12; i++) await etcdctl('put', `${prefix}k${String(i).padStart(2, '0')}`, `{"n":${i},"color":"blue"}`);
  await etcdctl('put', `${prefix}k03`, '{"n":3,"color":"green"}');
  await etcdctl('del', `${prefix}k11`);

  await page.getByTestId('filter-key').locator('input').fill(prefix);
  const rows = page.getByTestId('watch-row');
  await expect(rows).toHaveCount(14);
  await expect(page.getByTestId('watch-counts')).toContainText('14 shown');
  await expect(rows.filter({ hasText: 'DELETE' })).toHaveCount(1);

  // Type filter: only the delete.
  await choose(page, 'filter-type', 'DELETE');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(`${prefix}k11`);
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByTestId('filter-key').locator('input').fill(prefix);
  await expect(rows).toHaveCount(14);

  // The second write of k03: its diff shows the colour change.
  await rows.filter({ hasText: `${prefix}k03` }).last().click();
  const diff = page.getByTestId('yaml-diff');
  await expect(diff.locator('[data-op="del"]').filter({ hasText: 'blue' })).toHaveCount(1);
  await expect(diff.locator('[data-op="add"]').filter({ hasText: 'green' })).toHaveCount(1);

  // Pause holds the list; new events are counted, and shown on resume.
  await page.getByTestId('pause-toggle').click();
  await etcdctl('put', `${prefix}late`, '1');
  await expect(page.getByTestId('paused-banner')).toContainText('1 new');
  await expect(rows).toHaveCount(14);
  await snap(page, testInfo, 'watch');
  await page.getByTestId('pause-toggle').click();
  await expect(rows).toHaveCount(15);

  // Keyboard: the list takes focus; Home selects the first event and shows its detail.
  await page.getByTestId('watch-list').focus();
  await page.keyboard.press('Home');
  await expect(page.locator('[role="option"][aria-selected="true"]')).toContainText(`${prefix}k00`);
  await expect(page.getByTestId('watch-detail')).toContainText(`${prefix}k00`);
});
