import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, startWebHarness, type SignedIn, type WebHarness } from './harness.js';

/** The Activity page in Chromium: two API keys made in the app's settings are listed with the person's name. */
describe('the activity log in Chromium', () => {
  let h: WebHarness;
  let olga: SignedIn;

  beforeAll(async () => {
    h = await startWebHarness();
    olga = await h.signUp({ name: 'Olga Berg', organization: 'Acme' });
  });
  afterAll(async () => h?.close());

  it('lists what the person did in the app, with their name, newest first; fits a 390 px phone', async () => {
    const { page } = olga;
    await page.goto('/settings/api-keys');
    for (const name of ['Nightly import', 'Zapier']) {
      await page.getByLabel('Key name').fill(name);
      await page.getByRole('button', { name: 'Create key' }).click();
      await expect.poll(() => page.getByRole('row').filter({ hasText: name }).count()).toBe(1);
      await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    }

    await page.getByRole('link', { name: 'Activity' }).click();
    await page.waitForURL(/\/activity$/);
    const rows = page.getByRole('table').getByRole('row');
    await expect
      .poll(async () => (await rows.allTextContents()).slice(1))
      .toEqual([expect.stringMatching(/Olga Berg\s*Person\s*API key created\s*API key\s*Zapier/), expect.stringMatching(/Olga Berg\s*Person\s*API key created\s*API key\s*Nightly import/)]);

    // filtered to what assistants did: nothing
    await page.getByLabel('Who').selectOption('mcp');
    await page.getByText('Nothing matches these filters').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count()).toBe(3);

    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'activity-phone');
    // no sideways scrolling on a phone
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
  });
});
