import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, startWebHarness, type WebHarness } from './harness.js';

describe('the calendar app in Chromium: shell and sign-in', () => {
  let h: WebHarness;
  beforeAll(async () => {
    h = await startWebHarness();
  });
  afterAll(async () => h?.close());

  it('a visitor without a session is sent to sign in, and comes back to the page they asked for', async () => {
    const context = await h.chromium.newContext({ baseURL: h.origin });
    const page = await context.newPage();
    await h.signUp({ email: 'olga@example.test', organization: 'Acme' });
    await page.goto('/channels');
    await page.waitForURL(/\/account\/login\?next=%2Fchannels/);
    await page.getByLabel('Email').fill('olga@example.test');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${h.origin}/channels`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('Channels');
    await context.close();
  });

  it('the shell: navigation between pages without reloads, the organisation and the person', async () => {
    const { page, context } = await h.signUp({ name: 'Nina', organization: 'Nordwind' });
    await page.goto('/');
    await page.waitForURL(`${h.origin}/calendar`);
    await expect.poll(() => page.locator('#org-switch option:checked').textContent()).toBe('Nordwind');
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(/\/settings/);
    await screenshot(page, 'shell');
    await context.close();
  });
});
