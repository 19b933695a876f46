import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../browser.js';
import { checkA11y } from './axe.js';
import { screenshot, startWebHarness, type SignedIn, type WebHarness } from './harness.js';

/**
 * The connect picker tells which platforms are ready on this deployment (GET /platforms): ready
 * ones first, the others marked "Needs setup"; an owner or admin who picks one is told exactly
 * what to register at the platform, anyone else whom to ask. Slack's app is configured here, X's
 * is not.
 */
describe('the connect picker in Chromium: ready platforms first, what an administrator must set up for the others', () => {
  let h: WebHarness;
  let owner: SignedIn;
  let page: Page;
  const problems: string[] = [];
  const dialog = () => page.getByRole('dialog');
  const names = async (list: string) => (await dialog().getByRole('list', { name: list }).locator('.ch-platform-name').allInnerTexts()).map((t) => t.trim());

  beforeAll(async () => {
    h = await startWebHarness({ env: { SLACK_CLIENT_ID: 'slack-client-id', SLACK_CLIENT_SECRET: 'slack-client-secret' } });
    owner = await h.signUp({ name: 'Olga', organization: 'Acme' });
    page = owner.page;
    await owner.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.origin });
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('lists ready platforms first and marks the others "Needs setup"', async () => {
    await page.goto('/channels');
    await page.getByRole('button', { name: 'Connect a channel' }).first().click();
    const needs = dialog().getByRole('list', { name: 'Needs setup' });
    await needs.waitFor();
    const ready = await names('Ready to connect');
    const setup = await names('Needs setup');
    expect(ready).toEqual(expect.arrayContaining(['Bluesky', 'Mastodon', 'Telegram', 'Slack']));
    expect(ready).not.toContain('X');
    expect(setup).toEqual(expect.arrayContaining(['X', 'LinkedIn', 'Discord']));
    expect(setup).not.toContain('Slack');
    expect(ready.length + setup.length).toBe(34);
    expect(setup).toHaveLength(21);
    // the ready list comes first in the dialog
    const order = await page.evaluate<(string | null)[]>("[...document.querySelectorAll('[role=dialog] ul.ch-platforms')].map((l) => l.getAttribute('aria-label'))");
    expect(order).toEqual(['Ready to connect', 'Needs setup']);
    await expect.poll(() => needs.getByRole('button', { name: /^X/ }).innerText()).toContain('Needs setup');
    await dialog().getByRole('heading', { name: 'Needs setup on this server' }).hover();
    await screenshot(page, 'connect-picker');
    await checkA11y(page, 'the connect picker');
  });

  it('an owner picking X is shown the callback URL to copy, the variables, the developer console and the docs', async () => {
    await dialog().getByRole('list', { name: 'Needs setup' }).getByRole('button', { name: /^X/ }).click();
    const callback = dialog().getByLabel('Give it this callback (redirect) URL, exactly:');
    expect(await callback.inputValue()).toBe(`${h.origin}/integrations/social/x/callback`);
    const vars = await dialog().getByRole('list', { name: 'Variables' }).getByRole('listitem').allInnerTexts();
    expect(vars.map((v) => v.replace(/\s+/g, ' ').trim())).toEqual(['X_CLIENT_ID missing', 'X_CLIENT_SECRET missing']);
    expect(await dialog().getByRole('link', { name: 'X developer console' }).getAttribute('href')).toBe('https://developer.x.com/en/portal/dashboard');
    expect(await dialog().innerText()).toContain('docs/platforms.md#app-x');
    await dialog().getByRole('button', { name: 'Copy URL' }).click();
    await dialog().getByRole('button', { name: 'Copied ✓' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(`${h.origin}/integrations/social/x/callback`);
    await screenshot(page, 'connect-setup');
    await checkA11y(page, 'the setup panel of a platform that needs the deployment\'s app');

    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'connect-setup-phone');
    await dialog().getByRole('button', { name: 'Choose another platform' }).click();
    await dialog().getByRole('list', { name: 'Needs setup' }).waitFor();
    await screenshot(page, 'connect-picker-phone');
    await page.setViewportSize({ width: 1360, height: 860 });
  });

  it('the Bluesky form asks for the handle first, the app password second, the optional service last', async () => {
    await dialog().getByLabel('Find a platform').fill('blue');
    await dialog().getByRole('button', { name: 'Bluesky', exact: true }).click();
    const handle = dialog().getByLabel('Handle');
    await handle.waitFor();
    expect(await handle.getAttribute('placeholder')).toBe('yourname.bsky.social');
    const labels = await dialog().locator('.ch-rjsf label.control-label').allInnerTexts();
    expect(labels.map((l) => l.replace('*', '').trim())).toEqual(['Handle', 'App password', 'Service (advanced)']);
    expect(await dialog().getByLabel('Service (advanced)').inputValue()).toBe('https://bsky.social');
    await screenshot(page, 'connect-bluesky');
    await page.keyboard.press('Escape');
  });

  it('a member picking X is told to ask an administrator, and sees no setup details', async () => {
    const invited = await owner.form.api('POST', '/public/v1/invitations', { email: 'mia@example.test', role: 'member' });
    expect(invited.statusCode).toBe(201);
    const link = invited.json<{ link: string }>().link;
    const token = link.slice(link.lastIndexOf('/') + 1);
    const form = await signUp(h.t.app, { email: 'mia@example.test', name: 'Mia', invite: token });
    const me = (await form.api('GET', '/public/v1/me')).json<{ organization: { name: string; role: string } }>();
    expect(me.organization).toMatchObject({ name: 'Acme', role: 'member' });
    const context = await h.chromium.newContext({ baseURL: h.origin, viewport: { width: 1360, height: 860 }, timezoneId: 'UTC', locale: 'en-GB' });
    await context.addCookies([...form.cookies].map(([name, value]) => ({ name, value, url: h.origin })));
    const member = await context.newPage();
    await member.goto('/channels');
    await member.getByRole('button', { name: 'Connect a channel' }).first().click();
    await member.getByRole('dialog').getByRole('list', { name: 'Needs setup' }).getByRole('button', { name: /^X/ }).click();
    const text = await member.getByRole('dialog').innerText();
    expect(text).toContain('Ask an administrator or the owner of Acme');
    expect(text).not.toContain('X_CLIENT_ID');
    expect(text).not.toContain('/integrations/social/x/callback');
    await screenshot(member, 'connect-setup-member');
    await context.close();
  });

  it('nothing was refused by the CSP and no script failed', () => {
    expect(problems).toEqual([]);
  });
});
