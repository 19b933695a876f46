import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dragToSlot } from './drag.js';
import { BLUESKY_ACCOUNT, screenshot, startWebHarness, TELEGRAM_BOT, TELEGRAM_CHAT, type WebHarness } from './harness.js';

// The end-to-end journey in one browser session: nothing arranged behind the app's back
// except a draft to drag (made through the same public API the app uses, with the same session).
const ZONE = 'Europe/Berlin';
const PHOTO = fileURLToPath(new URL('../fixtures/media/photo-64x48.jpg', import.meta.url));

interface PostRow {
  id: string;
  state: string;
  publishDate: string;
  content: string;
  releaseURL: string | null;
  thread: { content: string; state: string }[];
  integration: { providerIdentifier: string };
}

vi.setConfig({ testTimeout: 240_000 });

describe('a first day with Tidings in Chromium: sign up, connect, compose, schedule, publish, move, delete', () => {
  let h: WebHarness;
  beforeAll(async () => {
    h = await startWebHarness();
  });
  afterAll(async () => h?.close());

  it('the whole journey through the app, checked at the platforms and through the API', async () => {
    // the person's browser runs in Berlin time; they choose no zone of their own, so the app shows the browser's
    const context = await h.chromium.newContext({ baseURL: h.origin, viewport: { width: 1360, height: 860 }, timezoneId: ZONE, locale: 'en-GB' });
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (e) => failures.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|EvalError/.test(m.text())) failures.push(m.text());
    });
    const api = async <T>(method: 'GET' | 'POST' | 'DELETE', path: string, data?: unknown): Promise<{ status: number; body: T }> => {
      const me = (await (await page.request.get('/public/v1/me')).json()) as { csrfToken: string };
      const res = await page.request.fetch(`/public/v1${path}`, { method, headers: { 'x-csrf-token': me.csrfToken }, ...(data === undefined ? {} : { data }) });
      return { status: res.status(), body: (await res.json()) as T };
    };
    const posts = async () => {
      const q = new URLSearchParams({ startDate: DateTime.now().minus({ days: 2 }).toUTC().toISO(), endDate: DateTime.now().plus({ days: 9 }).toUTC().toISO() });
      return (await api<{ posts: PostRow[] }>('GET', `/posts?${q.toString()}`)).body.posts;
    };

    // 1. sign up: the first account of this deployment, straight into the calendar
    // (a fresh deployment opens on making its first account, not on signing in)
    await page.goto('/');
    await page.waitForURL(/\/account\/signup$/);
    await page.getByText('This is the first account of this Tidings').waitFor();
    await page.getByLabel('Email').fill('maya@acme.example');
    await page.getByLabel('Your name').fill('Maya');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByLabel('Organisation name').fill('Acme Bakery');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${h.origin}/calendar`);
    await page.getByRole('heading', { level: 1, name: 'Calendar' }).waitFor();

    // 2. connect Telegram and Bluesky with the forms generated from their schemas
    await page.getByRole('link', { name: 'Channels' }).click();
    const dialog = page.getByRole('dialog');
    await page.getByRole('button', { name: 'Connect a channel' }).first().click();
    await dialog.getByRole('button', { name: 'Telegram', exact: true }).click();
    await dialog.getByLabel('Bot token').fill(TELEGRAM_BOT);
    await dialog.getByLabel('Chat ID').fill(`@${TELEGRAM_CHAT.username}`);
    await dialog.getByRole('button', { name: 'Connect', exact: true }).click();
    await dialog.getByText(`Connected: ${TELEGRAM_CHAT.title}`).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Connect a channel' }).first().click();
    await dialog.getByLabel('Find a platform').fill('blue');
    await dialog.getByRole('button', { name: 'Bluesky', exact: true }).click();
    await dialog.getByLabel('Handle').fill(BLUESKY_ACCOUNT.handle);
    await dialog.getByLabel('Password').fill(BLUESKY_ACCOUNT.password);
    await dialog.getByRole('button', { name: 'Connect', exact: true }).click();
    await dialog.getByText(`Connected: ${BLUESKY_ACCOUNT.displayName}`).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    const channels = (await api<{ id: string; name: string; identifier: string }[]>('GET', '/integrations')).body;
    expect(channels.map((c) => c.identifier).sort()).toEqual(['bluesky', 'telegram']);
    const telegram = channels.find((c) => c.identifier === 'telegram')!;
    const bluesky = channels.find((c) => c.identifier === 'bluesky')!;

    // 3. compose a thread with a picture for both: previews and a counter per platform
    const sent: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/public/v1/posts') sent.push(r.postData() ?? '');
    });
    await page.getByRole('link', { name: 'Calendar' }).click();
    await page.getByRole('button', { name: 'New post' }).click();
    const composer = page.getByRole('dialog', { name: 'New post' });
    await composer.getByRole('button', { name: new RegExp(telegram.name) }).click();
    await composer.getByRole('button', { name: new RegExp(bluesky.name) }).click();
    // (the accents are combining marks: two UTF-16 units each for Telegram, one grapheme each for Bluesky)
    const text = 'Fresh sourdough at Cafe\u0301 Lumie\u0300re, out of the oven: come by before noon https://acme.example/bread';
    await composer.getByLabel('Post text', { exact: true }).fill(text);
    await composer.getByLabel('Upload media to post text').setInputFiles(PHOTO);
    await composer.getByLabel('Alt text for photo-64x48.jpg').fill('A loaf on the counter');
    await composer.getByRole('button', { name: '+ Add thread item' }).click();
    await composer.getByLabel('Thread item 1', { exact: true }).fill('Gluten-free loaves on Fridays.');
    const counter = (id: string) => composer.locator(`.compose-counter[data-channel="${id}"] .compose-counter-value`).first();
    // Telegram counts UTF-16 units, Bluesky graphemes
    await expect.poll(() => counter(telegram.id).textContent()).toBe(`${text.length} / 4096`);
    await expect.poll(() => counter(bluesky.id).textContent()).toBe(`${text.length - 2} / 300`);
    expect(await composer.getByRole('article', { name: `Preview on ${telegram.name}` }).textContent()).toContain('Gluten-free loaves on Fridays.');
    await expect.poll(() => composer.getByRole('article', { name: `Preview on ${bluesky.name}` }).locator('img').count()).toBeGreaterThan(0);

    // an over-long caption for Bluesky: the error on the field, nothing sent
    await composer.getByRole('tab', { name: new RegExp(bluesky.name) }).click();
    await composer.getByRole('radio', { name: 'Its own text' }).check();
    const own = composer.getByLabel(`Post text for ${bluesky.name}`, { exact: true });
    await own.fill('Sourdough! '.repeat(30));
    await composer.getByRole('button', { name: 'Schedule' }).click();
    await composer.getByRole('alert').filter({ hasText: 'Bluesky allows 300 characters' }).first().waitFor();
    expect(await own.getAttribute('aria-invalid')).toBe('true');
    expect(sent).toEqual([]);
    await own.fill('Fresh sourdough, out of the oven now. Come by before noon!');

    // schedule it for the next minute (at least 40 s away), in the person's zone
    const at = DateTime.now().setZone(ZONE).plus({ seconds: 40 }).startOf('minute').plus({ minutes: 1 });
    await composer.getByLabel('Date').fill(at.toISODate()!);
    await composer.getByLabel('Time').fill(at.toFormat('HH:mm'));
    await composer.getByRole('button', { name: 'Schedule' }).click();
    await composer.waitFor({ state: 'detached' });
    await page.getByText(/^Scheduled on /).waitFor();
    expect(sent).toHaveLength(1);
    const scheduled = (await posts()).filter((p) => p.content.includes('ourdough'));
    expect(scheduled.map((p) => [p.state, p.publishDate])).toEqual([
      ['QUEUE', at.toUTC().toISO({ suppressMilliseconds: false })],
      ['QUEUE', at.toUTC().toISO({ suppressMilliseconds: false })],
    ]);

    // 4. watch it turn published in the calendar (the calendar refreshes when the page is reloaded)
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.locator('.post-event', { hasText: 'ourdough' }).first().waitFor();
          // one event for the two channels' posts, each channel's state on its avatar
          return (await page.locator('.post-event', { hasText: 'ourdough' }).locator('.cal-channel .visually-hidden').allTextContents()).map((l) => l.split(': ')[1]);
        },
        { timeout: 150_000, interval: 3_000 },
      )
      .toEqual(['Published', 'Published']);
    expect(await page.locator('.post-event', { hasText: 'ourdough' }).count()).toBe(1);
    expect(h.telegram.messages.map((m) => m.caption ?? m.text)).toEqual([text, 'Gluten-free loaves on Fridays.']);
    expect(h.sky.records.map((r) => r.text)).toEqual(['Fresh sourdough, out of the oven now. Come by before noon!', 'Gluten-free loaves on Fridays.']);
    await screenshot(page, 'journey-published');

    // 5. open the platform link (the platform's page answered here: this machine has no internet)
    await context.route('https://t.me/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Telegram</title><p>the message</p>' }));
    // the group's event: a click on the Telegram channel's avatar opens that channel's post
    await page.locator('.post-event', { hasText: 'ourdough' }).locator('.cal-channel', { hasText: `${TELEGRAM_CHAT.title} (Telegram)` }).click();
    await page.waitForURL(/\/posts\//);
    const link = page.getByRole('link', { name: 'View on Telegram ↗' }).first();
    const messageUrl = `https://t.me/${TELEGRAM_CHAT.username}/${h.telegram.messages[0]!.messageId}`;
    expect(await link.getAttribute('href')).toBe(messageUrl);
    const [platformPage] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await platformPage.waitForLoadState();
    expect(platformPage.url()).toBe(messageUrl);
    await platformPage.close();

    // 6. drag a draft to another day: the API agrees
    // a Tuesday to come, moved to the Wednesday after: one week view shows both, whatever day the
    // test runs on and whichever day the browser's locale starts weeks on (Saturday, Sunday, Monday)
    let draftAt = DateTime.now().setZone(ZONE).plus({ days: 1 }).set({ hour: 10, minute: 0, second: 0, millisecond: 0 });
    while (draftAt.weekday !== 2) draftAt = draftAt.plus({ days: 1 });
    const made = await api<{ postId: string }[]>('POST', '/posts', {
      type: 'draft',
      date: draftAt.toUTC().toISO(),
      shortLink: false,
      tags: [],
      posts: [{ integration: { id: telegram.id }, value: [{ content: 'Croissant week (draft)', image: [] }], settings: {} }],
    });
    expect(made.status).toBe(201);
    const draftId = made.body[0]!.postId;
    const target = draftAt.plus({ days: 1 }).set({ hour: 12 });
    await page.goto(`/calendar?view=week&date=${draftAt.toISODate()}`);
    const draft = page.locator('.post-event', { hasText: 'Croissant week' });
    await draft.waitFor();
    await dragToSlot(page, page.locator('.post-event', { hasText: 'Croissant week' }), target.toISODate()!, '12:00');
    await expect.poll(async () => (await api<PostRow>('GET', `/posts/${draftId}`)).body.publishDate, { timeout: 15_000 }).toBe(target.toUTC().toISO());
    expect((await api<PostRow>('GET', `/posts/${draftId}`)).body.state).toBe('DRAFT');

    // 7. delete a post (the draft), from its page
    await page.locator('.post-event', { hasText: 'Croissant week' }).click();
    await page.waitForURL(`${h.origin}/posts/${draftId}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this post?' });
    await confirm.getByRole('button', { name: /^Delete/ }).last().click();
    await page.waitForURL(/\/calendar/);
    expect((await api('GET', `/posts/${draftId}`)).status).toBe(404);

    // phone width: the calendar, the composer, channels and analytics fit
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, name] of [
      ['/calendar', 'calendar-phone'],
      ['/channels', 'channels-phone'],
      ['/analytics', 'analytics-phone'],
    ] as const) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      // what sticks out past the screen's right edge (none: nothing scrolls sideways)
      const sticking = await page.evaluate<string[]>(
        `(() => {
          const clipped = (e) => { for (let a = e.parentElement; a; a = a.parentElement) { if (['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(a).overflowX)) return true; } return false; };
          return [...document.querySelectorAll('body *')]
            .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .slice(0, 12)
            .map((e) => e.tagName.toLowerCase() + '.' + [...e.classList].join('.') + ' ' + Math.round(e.getBoundingClientRect().right) + (clipped(e) ? ' (clipped)' : '') + ' ' + getComputedStyle(e).position);
        })()`,
      );
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      if (overflow > 0) await screenshot(page, `${name}-overflow`);
      expect(overflow, `${path} scrolls sideways at phone width: ${sticking.join(', ')}`).toBeLessThanOrEqual(0);
      await screenshot(page, name);
    }
    expect(failures).toEqual([]);
    await context.close();
  });
});
