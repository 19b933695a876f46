import type { Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelegramAndBluesky, screenshot, startWebHarness, type SignedIn, type WebHarness } from './harness.js';

/**
 * Client preview links in Chromium (issue 31): the owner shares a post for review from its page
 * (with a password); a fresh browser with no session opens the link, types the password and sees
 * the post as it will look on each channel — and nothing the page loads names another post, the
 * organisation, a channel id or an API key.
 */
describe('client preview links in Chromium', () => {
  let h: WebHarness;
  let olga: SignedIn;
  const secrets: string[] = [];
  let postId: string;
  let apiKey: string;
  let telegramId: string;

  beforeAll(async () => {
    h = await startWebHarness();
    olga = await h.signUp({ name: 'Olga Berg', organization: 'Acme' });
    const { telegram, bluesky } = await connectTelegramAndBluesky(olga);
    const draft = async (date: string, content: string) => {
      const res = await olga.form.api('POST', '/public/v1/posts', {
        type: 'draft',
        date,
        shortLink: false,
        tags: [],
        posts: [telegram, bluesky].map((c) => ({ integration: { id: c.id }, value: [{ content, image: [] }] })),
      });
      if (res.statusCode !== 201) throw new Error(`creating a post answered ${res.statusCode}: ${res.body}`);
      return res.json<{ postId: string; group: string }[]>();
    };
    const shared = await draft('2031-07-01T09:00:00Z', 'Spring launch: our new app is here #launch');
    const other = await draft('2031-07-02T09:00:00Z', 'Internal only: pricing change');
    postId = shared[0]!.postId;
    const key = await olga.form.api('POST', '/public/v1/api-keys', { name: 'Zapier' });
    apiKey = key.json<{ apiKey: string }>().apiKey;
    telegramId = telegram.id;
    secrets.push(...shared.map((p) => p.postId), ...other.map((p) => p.postId), other[0]!.group, telegram.id, bluesky.id, olga.organizationId, key.json<{ apiKey: string }>().apiKey);
  });
  afterAll(async () => h?.close());

  it('shares a post with a password; a fresh browser sees its previews after the password, and nothing else', async () => {
    const { page } = olga;
    await page.goto(`/posts/${postId}`);
    await page.getByRole('button', { name: 'Share for review' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share for review' });
    await dialog.getByLabel('Title (optional)').fill('Spring launch for Acme');
    await dialog.getByLabel('Password (optional)').fill('blue harbour 42');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const url = await dialog.getByLabel('Preview link', { exact: true }).inputValue();
    expect(url).toMatch(new RegExp(`^${h.origin}/preview/tdp_[A-Za-z0-9_-]{43}$`));
    await expect.poll(() => dialog.getByRole('listitem').count()).toBe(1);
    await screenshot(page, 'preview-link-dialog');
    await dialog.getByRole('button', { name: 'Done, I have saved it' }).click();

    // A client: another browser, no session, nothing stored.
    const client = await h.chromium.newContext({ viewport: { width: 1360, height: 860 }, timezoneId: 'UTC', locale: 'en-GB' });
    const reading: Promise<string>[] = [];
    const pageOf = await client.newPage();
    pageOf.on('response', (r: Response) => reading.push(r.text().then((body) => `${r.url()}\n${JSON.stringify(r.headers())}\n${body}`, () => r.url())));
    await pageOf.goto(url);
    await pageOf.getByRole('heading', { name: 'This preview is protected' }).waitFor();
    await pageOf.getByLabel('Password').fill('not the password');
    await pageOf.getByRole('button', { name: 'Show the posts' }).click();
    await pageOf.getByText('That password is not right.').waitFor();
    await pageOf.getByLabel('Password').fill('blue harbour 42');
    await pageOf.getByRole('button', { name: 'Show the posts' }).click();
    await pageOf.getByRole('heading', { name: 'Spring launch for Acme' }).waitFor();
    for (const channel of ['Acme News', 'Acme on Bluesky']) {
      const card = pageOf.getByRole('article', { name: `Preview on ${channel}` });
      await expect.poll(() => card.textContent()).toContain('Spring launch: our new app is here');
    }
    expect(await pageOf.getByText('Draft', { exact: true }).count()).toBe(1);
    await screenshot(pageOf, 'preview-page');
    await pageOf.setViewportSize({ width: 390, height: 844 });
    await screenshot(pageOf, 'preview-page-phone');
    expect(await pageOf.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);

    // The crawl: every response the page loaded (the app, the API's answers, their headers).
    const bodies = await Promise.all(reading);
    const all = bodies.join('\n');
    expect(all).toContain('Spring launch: our new app is here');
    expect(all).not.toContain('Internal only: pricing change');
    expect(secrets.filter((s) => all.includes(s))).toEqual([]);
    await client.close();

    // An altered link says so plainly.
    const stranger = await h.chromium.newContext({ viewport: { width: 390, height: 844 } });
    const page404 = await stranger.newPage();
    await page404.goto(url.slice(0, -2) + (url.endsWith('AA') ? 'BB' : 'AA'));
    await page404.getByRole('heading', { name: 'This link is not valid or has expired' }).waitFor();
    await stranger.close();
  });

  it('lets the client approve by name on a phone when the link allows it: the post is queued', async () => {
    const made = await h.t.app.inject({
      method: 'POST',
      url: '/public/v1/posts',
      headers: { authorization: apiKey },
      payload: { type: 'draft', date: '2031-07-03T09:00:00Z', shortLink: false, tags: [], posts: [{ integration: { id: telegramId }, value: [{ content: 'Summer sale starts Friday', image: [] }] }] },
    });
    const { postId: id, group } = made.json<{ postId: string; group: string }[]>()[0]!;
    // (submitted with the API key: who asked is not the subject here)
    const submitted = await h.t.app.inject({ method: 'POST', url: `/public/v1/posts/group/${group}/submit`, headers: { authorization: apiKey }, payload: {} });
    expect(submitted.statusCode, submitted.body).toBe(200);

    const { page } = olga;
    await page.goto(`/posts/${id}`);
    await page.getByRole('button', { name: 'Share for review' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share for review' });
    await dialog.getByRole('checkbox', { name: /approve or request changes/ }).check();
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const url = await dialog.getByLabel('Preview link', { exact: true }).inputValue();
    await dialog.getByRole('button', { name: 'Done, I have saved it' }).click();

    const client = await h.chromium.newContext({ viewport: { width: 390, height: 844 }, timezoneId: 'UTC', locale: 'en-GB' });
    const phone = await client.newPage();
    await phone.goto(url);
    await phone.getByText('Awaiting your approval').waitFor();
    await phone.getByRole('textbox', { name: 'Your name' }).fill('Clara Client');
    await phone.getByRole('button', { name: 'Save' }).click();
    await phone.getByText('Reviewing as').waitFor();
    await screenshot(phone, 'preview-approve-phone');
    expect(await phone.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await phone.getByRole('button', { name: 'Approve' }).click();
    await phone.getByText('Approved', { exact: true }).waitFor();
    await client.close();

    const after = await olga.form.api('GET', `/public/v1/posts/group/${group}`);
    expect(after.json<{ posts: { state: string }[] }>().posts.map((p) => p.state)).toEqual(['QUEUE']);
    const log = await olga.form.api('GET', '/public/v1/activity?action=post.approved');
    expect(log.json<{ entries: { actor: { kind: string; name: string } }[] }>().entries.map((e) => e.actor)).toContainEqual(expect.objectContaining({ kind: 'preview_link', name: 'Clara Client (preview link)' }));
  });
});
