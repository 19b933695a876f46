import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Browser as FormBrowser } from '../browser.js';
import { registerApp } from '../oauth-client.js';
import { connectTelegramAndBluesky, screenshot, startWebHarness, type SignedIn, type WebHarness } from './harness.js';

// pages load lazily on a busy 2-core machine: polls wait up to 15 s instead of the default 1 s
vi.setConfig({ expect: { poll: { timeout: 15_000, interval: 100 } } });

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1360, height: 860 };

/** Nothing on the page scrolls sideways. */
const noSideScroll = (page: Page) => page.evaluate<boolean>('document.documentElement.scrollWidth <= document.documentElement.clientWidth');

/** Every visible input (but radios and checkboxes) and button of the page's main part that is under 44 px tall. */
const shortTargets = (page: Page) =>
  page.evaluate<string[]>(`[...document.querySelectorAll('main button, main input:not([type=hidden]):not([type=radio]):not([type=checkbox]), main select')]
    .filter((e) => e.offsetParent !== null && e.getBoundingClientRect().height < 44)
    .map((e) => e.outerHTML.slice(0, 80))`);

describe('the first hour in Chromium (issue 28): sign up, the getting-started checklist, the account pages', () => {
  let h: WebHarness;
  let me: SignedIn;

  beforeAll(async () => {
    h = await startWebHarness();
  });
  afterAll(async () => h?.close());

  it('the sign-up and sign-in pages look like the app: a centred card with the mark, 44 px targets, no sideways scroll at 390 px', async () => {
    const context = await h.chromium.newContext({ baseURL: h.origin, viewport: DESKTOP, locale: 'en-GB' });
    const page = await context.newPage();
    // a fresh deployment sends its first visitor to make the owner account
    await page.goto('/account/login');
    await page.waitForURL(/\/account\/signup$/);
    expect(await page.locator('header .brand img[src="/favicon.svg"]').count()).toBe(1);
    await screenshot(page, 'first-run-signup-desktop');
    await page.getByLabel('Email').fill('fay@example.test');
    await page.getByLabel('Your name').fill('Fay');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByLabel('Organisation name').fill('First Hour');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Calendar' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/calendar');

    // the person's session, for arranging through the API as the harness does
    const form = new FormBrowser(h.t.app);
    for (const c of await context.cookies()) form.cookies.set(c.name, c.value);
    const org = (await form.api('GET', '/public/v1/me')).json<{ organization: { id: string } }>();
    me = { context, page, form, organizationId: org.organization.id };

    // the sign-in page, signed out in another context, desktop and phone
    const out = await h.chromium.newContext({ baseURL: h.origin, viewport: DESKTOP, locale: 'en-GB' });
    const signIn = await out.newPage();
    await signIn.goto('/account/login');
    const card = await signIn.locator('main').boundingBox();
    // centred: the card's margins left and right are equal (to the pixel)
    expect(Math.abs(card!.x - (DESKTOP.width - (card!.x + card!.width)))).toBeLessThanOrEqual(1);
    expect(await shortTargets(signIn)).toEqual([]);
    await screenshot(signIn, 'first-run-sign-in-desktop');
    await signIn.setViewportSize(PHONE);
    expect(await noSideScroll(signIn)).toBe(true);
    expect(await shortTargets(signIn)).toEqual([]);
    await screenshot(signIn, 'first-run-sign-in-390');
    await signIn.setViewportSize({ width: 360, height: 740 });
    expect(await noSideScroll(signIn)).toBe(true);
    await signIn.goto('/account/signup');
    await signIn.setViewportSize(PHONE);
    expect(await noSideScroll(signIn)).toBe(true);
    // the fields and the action are the ones the forms always had
    expect(await signIn.locator('form[action="/account/signup"] input[name="_csrf"]').count()).toBe(1);
    await out.close();
  });

  it('a new organisation sees the checklist with nothing done and a New post that says why it is disabled', async () => {
    const { page } = me;
    const list = page.getByRole('region', { name: 'Getting started' });
    await expect.poll(() => list.getByText('0 of 4 done').count()).toBe(1);
    expect(await list.getByRole('listitem').allTextContents()).toEqual([
      expect.stringContaining('Connect a channel (to do)'),
      expect.stringContaining('Write a first post (to do)'),
      expect.stringContaining('Invite a teammate (to do)'),
      expect.stringContaining('Create an API key (to do)'),
    ]);
    const newPost = page.getByRole('button', { name: 'New post' });
    expect(await newPost.isDisabled()).toBe(true);
    const why = await newPost.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${why}"]`).textContent()).toContain('Connect a channel first');
    await screenshot(page, 'first-run-checklist-desktop');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'first-run-checklist-390');
    await page.setViewportSize(DESKTOP);

    // its first action opens the connect dialog right here
    await list.getByRole('button', { name: 'Connect a channel' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
  });

  it('connect, post, key, invitation: each ticks, and the checklist is gone when all are done', async () => {
    const { page, form } = me;
    const list = page.getByRole('region', { name: 'Getting started' });
    const { bluesky } = await connectTelegramAndBluesky(me);
    await page.reload();
    await expect.poll(() => list.getByText('1 of 4 done').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'New post' }).isDisabled()).toBe(false);

    // a first post, written from the checklist
    await list.getByRole('button', { name: 'Write a post' }).click();
    const composer = page.getByRole('dialog', { name: 'New post' });
    await composer.getByRole('button', { name: new RegExp(bluesky.name) }).click();
    await composer.getByLabel('Post text', { exact: true }).fill('Hello from the first hour');
    await composer.getByRole('button', { name: 'Save as draft' }).click();
    await expect.poll(() => composer.count()).toBe(0);
    // the composer's invalidation of posts makes the checklist read its steps again
    await expect.poll(() => list.getByText('2 of 4 done').count()).toBe(1);

    // an API key, in Settings (the checklist's link)
    await list.getByRole('link', { name: 'Create an API key' }).click();
    await page.waitForURL(/\/settings\/api-keys$/);
    await page.getByLabel('Key name').fill('First script');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'First script' }).count()).toBe(1);
    await page.getByRole('link', { name: 'Calendar' }).click();
    await expect.poll(() => list.getByText('3 of 4 done').count()).toBe(1);
    expect(await list.getByText(/Create an API key/).textContent()).toContain('(done)');

    // a teammate invited through the API
    expect((await form.api('POST', '/public/v1/invitations', { role: 'member', email: 'sam@example.test' })).statusCode).toBe(201);
    await page.reload();
    await page.getByRole('heading', { name: 'Calendar' }).waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'New post' }).isEnabled()).toBe(true);
    // GET /onboarding answered with every step done: nothing shows
    await expect.poll(async () => (await form.api('GET', '/public/v1/onboarding')).json<{ steps: { done: boolean }[] }>().steps.every((s) => s.done)).toBe(true);
    await expect.poll(() => page.getByRole('region', { name: 'Getting started' }).count()).toBe(0);
  });

  it('dismissed, the checklist stays away for that person after a reload, and shows for someone else', async () => {
    const other = await h.signUp({ name: 'Gus', organization: 'Second Org' });
    const { page } = other;
    await page.goto('/calendar');
    await page.getByRole('heading', { name: 'Calendar' }).waitFor();
    const list = page.getByRole('region', { name: 'Getting started' });
    await expect.poll(() => list.getByText('0 of 4 done').count()).toBe(1);
    await list.getByRole('button', { name: 'Hide checklist' }).click();
    await expect.poll(() => list.count()).toBe(0);
    await page.reload();
    await page.getByRole('heading', { name: 'Calendar' }).waitFor();
    await expect.poll(() => page.getByRole('button', { name: 'New post' }).count()).toBe(1);
    expect(await list.count()).toBe(0);
    // the explained New post stays: dismissing the checklist does not hide why posting waits
    expect(await page.getByText('Connect a channel first').count()).toBe(1);

    const third = await h.signUp({ name: 'Hal', organization: 'Third Org' });
    await third.page.goto('/calendar');
    await expect.poll(() => third.page.getByRole('region', { name: 'Getting started' }).count()).toBe(1);
  });

  it('the consent and device pages: the same card, 44 px targets, no sideways scroll at 390 px', async () => {
    const { page, form } = me;
    const app = await registerApp(form, { name: 'Scheduler Pro', redirectUris: ['https://app.example/callback'] });
    const q = new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: 'https://app.example/callback', scope: 'mcp:read mcp:write', state: 's1', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
    await page.setViewportSize(DESKTOP);
    await page.goto(`/oauth/authorize?${q.toString()}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.locator('form[action="/oauth/authorize"]').count()).toBeGreaterThan(0);
    expect(await shortTargets(page)).toEqual([]);
    await screenshot(page, 'first-run-consent-desktop');
    await page.setViewportSize(PHONE);
    expect(await noSideScroll(page)).toBe(true);
    expect(await shortTargets(page)).toEqual([]);
    await screenshot(page, 'first-run-consent-390');

    await page.goto('/device/verify');
    expect(await noSideScroll(page)).toBe(true);
    expect(await shortTargets(page)).toEqual([]);
    await screenshot(page, 'first-run-device-390');
    await page.setViewportSize(DESKTOP);
  });
});
