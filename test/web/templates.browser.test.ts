import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelegramAndBluesky, screenshot, startWebHarness, type ConnectedChannel, type SignedIn, type WebHarness } from './harness.js';
import { measureLayout } from './layout.js';

/**
 * Issue 31 part 4 in Chromium: an auto-add signature and a template with a placeholder made in
 * Settings, a post composed from the template (its value asked) and scheduled: the post's text holds
 * the value and the signature. Settings at phone width does not scroll sideways.
 */
describe('templates and signatures in Chromium', () => {
  let h: WebHarness;
  let me: SignedIn;
  let telegram: ConnectedChannel;

  beforeAll(async () => {
    h = await startWebHarness();
    me = await h.signUp({ timezone: 'UTC', organization: 'Acme' });
    ({ telegram } = await connectTelegramAndBluesky(me));
  });
  afterAll(async () => h?.close());

  it('makes a signature and a template in Settings, composes from the template and schedules a post holding the value and the signature', async () => {
    const { page } = me;
    await page.goto('/settings/templates');

    await page.getByRole('button', { name: 'New signature' }).click();
    const sig = page.getByRole('dialog', { name: 'New signature' });
    await sig.getByRole('textbox', { name: 'Name' }).fill('Team');
    await sig.getByRole('textbox', { name: /^Signature text/ }).fill('— the Acme team');
    await sig.getByRole('checkbox', { name: /Add automatically/ }).check();
    await sig.getByRole('checkbox', { name: new RegExp(telegram.name) }).check();
    await sig.getByRole('button', { name: 'Create signature' }).click();
    await sig.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'New template' }).click();
    const tpl = page.getByRole('dialog', { name: 'New template' });
    await tpl.getByRole('textbox', { name: 'Name' }).fill('Launch');
    await tpl.getByRole('textbox', { name: /^Text/ }).fill('Say hello to {{product}}!');
    await tpl.getByText('Placeholders: {{product}}').waitFor();
    await tpl.getByRole('button', { name: 'Create template' }).click();
    await tpl.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Launch' }).waitFor();
    await screenshot(page, 'templates-settings');
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const m = await measureLayout(page);
      expect(m.scrollWidth, `past the edge: ${m.wide.join('; ')}`).toBeLessThanOrEqual(m.clientWidth);
      await screenshot(page, 'templates-settings-390');
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }

    const day = DateTime.utc().plus({ days: 3 });
    await page.goto(`/calendar?view=week&date=${day.toISODate()}`);
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.getByRole('button', { name: new RegExp(telegram.name) }).click();
    await dialog.getByText(/Signature “Team” is added at the end of the post on/).waitFor();
    await dialog.getByRole('button', { name: 'Templates', exact: true }).click();
    await page.getByRole('dialog', { name: 'Insert a template' }).getByRole('button', { name: /Launch/ }).click();
    const values = page.getByRole('dialog', { name: 'Use “Launch”' });
    await values.getByRole('textbox', { name: 'product' }).fill('Tidings 2');
    await values.getByRole('button', { name: 'Insert template' }).click();
    await expect.poll(() => dialog.getByLabel('Post text', { exact: true }).inputValue()).toBe('Say hello to Tidings 2!');
    await dialog.getByLabel('Date').fill(day.toISODate());
    await dialog.getByLabel('Time').fill('10:00');
    await screenshot(page, 'templates-compose');
    await page.setViewportSize({ width: 390, height: 844 });
    await dialog.getByRole('button', { name: 'Save as template' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'templates-compose-390');
    await page.setViewportSize({ width: 1360, height: 860 });
    await dialog.getByRole('button', { name: 'Schedule', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });

    const res = await me.form.api('GET', `/public/v1/posts?startDate=${encodeURIComponent(day.startOf('day').toISO())}&endDate=${encodeURIComponent(day.endOf('day').toISO())}`);
    const posts = res.json<{ posts: { content: string; integration: { id: string } }[] }>().posts.filter((p) => p.integration.id === telegram.id);
    expect(posts).toHaveLength(1);
    expect(posts[0]!.content).toContain('Say hello to Tidings 2!');
    expect(posts[0]!.content).toContain('— the Acme team');
  });
});
