import { expect, test } from './fixtures';
import { openView, snap, waitHealthy } from './helpers';

test('members: a card per member with probe data, command previews, defrag and pause/resume a follower', async ({ page }, testInfo) => {
  await openView(page, 'members');
  const cards = page.locator('[data-testid^="member-m"]');
  await expect(cards).toHaveCount(3);
  await expect(page.locator('[data-testid^="member-m"][data-leader="true"]')).toHaveCount(1);
  for (const c of await cards.all()) {
    await expect(c.locator('[data-field="raftTerm"]')).toHaveText(/^\d+$/);
    await expect(c).toContainText('✓ healthy');
  }

  const follower = page.locator('[data-testid^="member-m"][data-leader="false"]').first();
  const name = (await follower.locator('h3').innerText()).trim();

  // Preview before running.
  await follower.locator('[data-action="defrag"]').hover();
  await expect(follower.getByTestId('command-preview')).toHaveText(/^etcdctl --endpoints=\S+ defrag$/);

  // Defrag asks first, then shows what ran.
  await follower.locator('[data-action="defrag"]').click();
  await page.getByRole('button', { name: `Defrag ${name}` }).click();
  const outcome = follower.getByTestId('action-outcome');
  await expect(outcome).toContainText('✓ defrag');
  await expect(outcome).toContainText('defrag');
  await snap(page, testInfo, 'members');

  // Pause: the card says paused (icon + word), the header goes degraded; resume brings it back.
  await follower.locator('[data-action="pause"]').click();
  await page.getByRole('button', { name: `Pause ${name}` }).click();
  await expect(follower).toContainText('‖ paused', { timeout: 30_000 });
  await expect(page.getByTestId('health-line')).toHaveAttribute('data-health', /degraded|down/, { timeout: 30_000 });
  await snap(page, testInfo, 'members-paused');
  await follower.locator('[data-action="resume"]').click();
  await expect(follower).toContainText('✓ healthy', { timeout: 30_000 });
  await waitHealthy(page);
});
