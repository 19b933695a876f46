import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLUESKY_ACCOUNT, screenshot, startWebHarness, TELEGRAM_CHAT, type SignedIn, type WebHarness, connectTelegramAndBluesky } from './harness.js';

interface PostRow {
  id: string;
  state: string;
  error: string | null;
  releaseURL: string | null;
}

const REJECTION = "Bad Request: can't parse entities: unsupported start tag";

describe('post detail, analytics and notifications in Chromium', () => {
  let h: WebHarness;
  let me: SignedIn;
  let telegram: string;
  let bluesky: string;

  async function postNow(integration: string, content: string): Promise<string> {
    const res = await me.form.api('POST', '/public/v1/posts', { type: 'now', date: new Date().toISOString(), shortLink: false, tags: [], posts: [{ integration: { id: integration }, value: [{ content, image: [] }] }] });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ postId: string }[]>()[0]!.postId;
  }
  async function post(id: string): Promise<PostRow> {
    return (await me.form.api('GET', `/public/v1/posts/${id}`)).json<PostRow>();
  }
  const badge = (page: Page) => page.locator('.page-header .post-sub .badge');
  const bell = (page: Page) => page.locator('.topbar a.bell');

  beforeAll(async () => {
    h = await startWebHarness();
    me = await h.signUp({ organization: 'Acme', timezone: 'Europe/Berlin' });
    const channels = await connectTelegramAndBluesky(me);
    telegram = channels.telegram.id;
    bluesky = channels.bluesky.id;
  });
  afterAll(async () => h?.close());

  it('a published post links to the platform and says what deleting it does; a rejected one shows the platform’s words, retries to published, and the bell and the list tell about it', async () => {
    const { page } = me;
    const published = await postNow(telegram, '<p>Spring sale starts <strong>today</strong>: everything at half price.</p>');
    await expect.poll(async () => (await post(published)).state, { timeout: 20_000 }).toBe('PUBLISHED');
    const sent = h.telegram.messages.at(-1)!;
    const messageUrl = `https://t.me/${TELEGRAM_CHAT.username}/${sent.messageId}`;
    expect((await post(published)).releaseURL).toBe(messageUrl);

    await page.goto(`/posts/${published}`);
    await page.getByRole('heading', { level: 1, name: 'Post on Acme News' }).waitFor();
    expect(await badge(page).textContent()).toBe('Published');
    expect(await page.locator('.post-body strong').textContent()).toBe('today');
    const link = page.getByRole('link', { name: 'View on Telegram ↗' }).first();
    expect(await link.getAttribute('href')).toBe(messageUrl);
    expect(await link.getAttribute('target')).toBe('_blank');
    // Telegram reports no figures, and the page says so instead of showing empty charts
    await page.getByText('Telegram does not report figures for single posts.').waitFor();
    await screenshot(page, 'post-detail');

    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this post?' });
    await expect.poll(() => dialog.textContent()).toContain('This deletes Tidings’ record only. The post stays on Telegram.');
    expect(await dialog.getByRole('link', { name: 'open it on Telegram' }).getAttribute('href')).toBe(messageUrl);
    await screenshot(page, 'post-detail-delete');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // The platform turns the next one down: the failure is final, in Telegram's words.
    h.telegram.injectKind('rejected');
    const failed = await postNow(telegram, 'Doors open at nine.');
    await expect.poll(async () => (await post(failed)).state, { timeout: 20_000 }).toBe('ERROR');
    expect((await post(failed)).error).toContain(REJECTION);
    await page.goto(`/posts/${failed}`);
    const alert = page.locator('.post-failure');
    await expect.poll(() => alert.textContent()).toContain(REJECTION);
    expect(await badge(page).textContent()).toBe('Error');
    // the publisher wrote a notification: the bell counts it (nothing seen yet in this browser)
    await expect.poll(() => bell(page).getAttribute('aria-label')).toMatch(/^[1-9]\d* new notifications?$/);
    await screenshot(page, 'post-detail-error');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'post-detail-phone');
    await page.setViewportSize({ width: 1360, height: 860 });

    // The injection was used up: Retry sends it again and it publishes; the page follows.
    const before = h.telegram.messages.length;
    await page.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => badge(page).textContent(), { timeout: 20_000 }).toBe('Published');
    expect(h.telegram.messages.slice(before).map((m) => m.text)).toEqual(['Doors open at nine.']);
    expect(await page.getByRole('link', { name: 'View on Telegram ↗' }).first().getAttribute('href')).toBe(`https://t.me/${TELEGRAM_CHAT.username}/${h.telegram.messages.at(-1)!.messageId}`);

    // The list: newest first, the failure in it, times in the zone; opening it clears the bell.
    await bell(page).click();
    await page.waitForURL(/\/notifications$/);
    const items = page.locator('.notification-list > li');
    await expect.poll(() => items.count()).toBeGreaterThanOrEqual(3);
    const texts = await page.locator('.notification-content').allTextContents();
    expect(texts.some((t) => t.includes('failed') && t.includes(REJECTION))).toBe(true);
    expect(texts[0]).toContain(`published on Telegram`);
    const stamps = page.locator('.notification-list time');
    const times: string[] = [];
    for (let i = 0; i < (await stamps.count()); i++) times.push((await stamps.nth(i).getAttribute('datetime')) ?? '');
    expect([...times].sort().reverse()).toEqual(times);
    expect(await page.locator('.notification-list a[target="_blank"]').first().getAttribute('href')).toMatch(/^https:\/\/t\.me\//);
    await expect.poll(() => bell(page).getAttribute('aria-label')).toBe('Notifications, none new');
    await screenshot(page, 'notifications');

    // Deleting the published post: Tidings forgets it, Telegram keeps it; back to the calendar.
    const onTelegram = h.telegram.messages.length;
    await page.goto(`/posts/${published}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete this post?' }).getByRole('button', { name: 'Delete from Tidings' }).click();
    await page.waitForURL(/\/calendar$/);
    expect((await me.form.api('GET', `/public/v1/posts/${published}`)).statusCode).toBe(404);
    expect(h.telegram.messages.length).toBe(onTelegram);
  });

  it('analytics: a channel whose platform reports nothing says so; Bluesky’s figures show, the period switches, and its published posts link to their details with their own figures', async () => {
    const { page } = me;
    h.sky.addAccount({ ...BLUESKY_ACCOUNT, followers: 1280, follows: 215 });
    const skyPost = await postNow(bluesky, 'Our spring collection is here.');
    await expect.poll(async () => (await post(skyPost)).state, { timeout: 20_000 }).toBe('PUBLISHED');
    const record = h.sky.records.at(-1)!;
    Object.assign(record, { likeCount: 42, repostCount: 7, replyCount: 3 });

    await page.goto(`/analytics?channel=${telegram}`);
    await page.getByText('Telegram does not report figures to Tidings').waitFor();

    await page.getByLabel('Channel').selectOption(bluesky);
    const followers = page.getByRole('article', { name: 'Followers' });
    await expect.poll(() => followers.locator('.metric-value').textContent()).toBe('1,280');
    expect(await page.getByRole('article', { name: 'Following' }).locator('.metric-value').textContent()).toBe('215');
    await expect.poll(() => page.getByRole('radio', { name: '30 days' }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: '7 days' }).click();
    await expect.poll(() => page.getByRole('radio', { name: '7 days' }).isChecked()).toBe(true);
    await page.waitForURL(/days=7/);
    await page.getByRole('heading', { name: 'Published posts, last 7 days' }).waitFor();
    await expect.poll(() => followers.locator('.metric-value').textContent()).toBe('1,280');
    await page.getByText('Bluesky reports only the current figures, not their history').waitFor();
    const postLink = page.locator('.analytics-posts').getByRole('link', { name: 'Our spring collection is here.' });
    await postLink.waitFor();
    await screenshot(page, 'analytics');

    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'analytics-phone');
    await page.setViewportSize({ width: 1360, height: 860 });

    await postLink.click();
    await page.waitForURL(new RegExp(`/posts/${skyPost}$`));
    const likes = page.getByRole('article', { name: 'Likes' });
    await expect.poll(() => likes.locator('.metric-value').textContent()).toBe('42');
    expect(await page.getByRole('article', { name: 'Reposts' }).locator('.metric-value').textContent()).toBe('7');
  });

  it('a platform that reports a daily history gets a line per metric (chart.js in the real browser)', async () => {
    const { page } = me;
    // The simulators here report current figures only (Bluesky), so this one answer of the analytics
    // route stands in for a platform with daily history (Facebook, Threads, YouTube…), to check the
    // chart itself draws.
    const days = Array.from({ length: 30 }, (_, i) => new Date(Date.UTC(2025, 2, 1 + i)).toISOString().slice(0, 10));
    await page.route(`**/public/v1/analytics/${bluesky}?date=30`, (route) =>
      route.fulfill({
        json: [
          { label: 'Impressions', percentageChange: 18.4, data: days.map((date, i) => ({ total: 900 + Math.round(300 * Math.sin(i / 3)) + i * 25, date })) },
          { label: 'Engagement', percentageChange: -4.2, data: days.map((date, i) => ({ total: 120 - i + (i % 4) * 9, date })) },
        ],
      }),
    );
    await page.goto(`/analytics?channel=${bluesky}&days=30`);
    const impressions = page.getByRole('article', { name: 'Impressions' });
    const canvas = impressions.locator('canvas[role="img"]');
    await canvas.waitFor();
    expect(await canvas.getAttribute('aria-label')).toMatch(/^Impressions: [\d,]+ on 30 Mar 2025, \+18\.4% over the period$/);
    expect(await page.getByRole('article', { name: 'Engagement' }).textContent()).toContain('\u22124.2%');
    // something was drawn: the canvas is not blank
    // (the shape of the canvas written out: the test's own TypeScript has no DOM types)
    type Canvas = { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } };
    const inked = await canvas.evaluate<number, undefined, Canvas>((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
      return n;
    }, undefined);
    expect(inked).toBeGreaterThan(500);
    // every number is also readable as a table
    await impressions.getByText('All 30 numbers').click();
    expect(await impressions.getByRole('table').getByRole('row').count()).toBe(31);
    await impressions.getByText('All 30 numbers').click();
    await screenshot(page, 'analytics-history');
    await page.unroute(`**/public/v1/analytics/${bluesky}?date=30`);
  });
});
