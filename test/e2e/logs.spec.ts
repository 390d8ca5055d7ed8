import { expect, test } from './fixtures';
import { choose, openView, snap } from './helpers';

test('logs: a member’s log, searchable, follows the tail', async ({ page }, testInfo) => {
  await openView(page, 'logs');
  await choose(page, 'log-component', 'm1');
  const lines = page.getByTestId('log-lines').locator('.line');
  await expect(lines.first()).toBeVisible();
  const all = await lines.count();
  expect(all).toBeGreaterThan(3);

  // A word every member logs at start; the search narrows to lines containing it.
  const word = 'raft';
  await page.getByTestId('log-search').locator('input').fill(word);
  await expect
    .poll(async () => {
      const texts = await lines.locator('.text').allInnerTexts();
      return texts.length > 0 && texts.length < all && texts.every((t) => t.toLowerCase().includes(word));
    })
    .toBe(true);
  await expect(page.getByTestId('log-lines')).toContainText(word);
  await snap(page, testInfo, 'logs');
});
