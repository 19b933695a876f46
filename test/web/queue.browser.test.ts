import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLUESKY_ACCOUNT, connectTelegramAndBluesky, screenshot, startWebHarness, TELEGRAM_CHAT, type ConnectedChannel, type SignedIn, type WebHarness } from './harness.js';

const BERLIN = 'Europe/Berlin';
/** A wall-clock time in Berlin as the API's UTC instant. */
const berlin = (date: string, time: string) => DateTime.fromISO(`${date}T${time}`, { zone: BERLIN }).toUTC().toISO()!;

/**
 * Issue 28's daily views: the channels' posting times as open slots on the week view, "Add to
 * queue" in the composer, the week opening at now, and the "Post now" notice linking to the post.
 * The person is in Berlin, so both channels start with 09:00, 12:30 and 17:00 Berlin time.
 */
describe('open slots, the queue and the calendar at now, in Chromium', () => {
  let h: WebHarness;
  let me: SignedIn;
  let telegram: ConnectedChannel;
  const nextWeek = DateTime.now().setZone(BERLIN).startOf('week').plus({ weeks: 1 });
  const day = (n: number) => nextWeek.plus({ days: n }).toISODate()!;

  beforeAll(async () => {
    h = await startWebHarness();
    me = await h.signUp({ timezone: BERLIN, organization: 'Acme' });
    ({ telegram } = await connectTelegramAndBluesky(me));
    // Telegram's 09:00 of next Tuesday is taken by a post; Bluesky's stays open
    const res = await me.form.api('POST', '/public/v1/posts', {
      type: 'schedule',
      date: berlin(day(1), '09:00'),
      shortLink: false,
      tags: [],
      posts: [{ integration: { id: telegram.id }, value: [{ content: '<p>Tuesday kick-off</p>', image: [] }], settings: {} }],
    });
    expect(res.statusCode, res.body).toBe(201);
  });
  afterAll(async () => h?.close());

  const slotsIn = (date: string) => me.page.locator(`td.fc-timegrid-col[data-date="${date}"] .cal-open-slot`);

  it('the week view shows each channel’s posting times not taken by its own posts; a click plans a post there for that channel', async () => {
    const { page } = me;
    await page.goto(`/calendar?view=week&date=${day(0)}`);
    await page.locator('.post-event', { hasText: 'Tuesday kick-off' }).waitFor();
    // Monday: three times for each of the two channels
    await expect.poll(() => slotsIn(day(0)).count()).toBe(6);
    const telegramTimes = (await slotsIn(day(0)).allTextContents()).filter((t) => t.includes(TELEGRAM_CHAT.title)).map((t) => / at (\d\d:\d\d)/.exec(t)?.[1]);
    expect(telegramTimes).toEqual(['09:00', '12:30', '17:00']);
    // Tuesday: Telegram's 09:00 holds the post, so only Bluesky's 09:00 is open
    expect(await slotsIn(day(1)).count()).toBe(5);
    const nine = slotsIn(day(1)).filter({ hasText: '09:00' });
    expect(await nine.count()).toBe(1);
    expect(await nine.textContent()).toContain(BLUESKY_ACCOUNT.displayName);
    await nine.scrollIntoViewIfNeeded();
    await screenshot(page, 'queue-open-slots');

    // a click on Bluesky's 12:30 on Wednesday opens the composer there, with Bluesky chosen
    const slot = slotsIn(day(2)).filter({ hasText: '12:30' }).filter({ hasText: BLUESKY_ACCOUNT.displayName });
    await slot.scrollIntoViewIfNeeded();
    await slot.click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.waitFor();
    expect(await dialog.getByLabel('Date').inputValue()).toBe(day(2));
    expect(await dialog.getByLabel('Time').inputValue()).toBe('12:30');
    expect(await dialog.getByRole('button', { name: new RegExp(BLUESKY_ACCOUNT.displayName) }).getAttribute('aria-pressed')).toBe('true');
    expect(await dialog.getByRole('button', { name: new RegExp(TELEGRAM_CHAT.title) }).getAttribute('aria-pressed')).toBe('false');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/calendar?view=day&date=${day(1)}`);
    await slotsIn(day(1)).first().waitFor();
    await slotsIn(day(1)).first().scrollIntoViewIfNeeded();
    await screenshot(page, 'queue-open-slots-phone');
    await page.setViewportSize({ width: 1360, height: 860 });
  });

  it('“Add to queue” schedules the post at the channel’s next open slot and says which time it took', async () => {
    const { page } = me;
    // the next open slot, as the service finds it (the same API the composer asks)
    const expected = (await me.form.api('GET', `/public/v1/find-slot/${telegram.id}`)).json<{ date: string }>().date;
    await page.goto('/calendar?view=week');
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.getByRole('button', { name: new RegExp(TELEGRAM_CHAT.title) }).click();
    await dialog.getByLabel('Post text', { exact: true }).fill('Queued for the next open slot');
    await dialog.getByRole('button', { name: 'Add to queue' }).click();
    await dialog.waitFor({ state: 'detached' });
    const when = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: BERLIN }).format(new Date(expected));
    const notice = page.getByText(`Added to the queue on ${TELEGRAM_CHAT.title} for ${when}, the next open slot of ${TELEGRAM_CHAT.title}.`);
    await notice.waitFor();
    await screenshot(page, 'queue-added');

    const listed = (
      await me.form.api('GET', `/public/v1/posts?startDate=${encodeURIComponent(new Date(Date.parse(expected) - 1000).toISOString())}&endDate=${encodeURIComponent(new Date(Date.parse(expected) + 1000).toISOString())}`)
    ).json<{ posts: { content: string; publishDate: string; state: string; integration: { id: string } }[] }>().posts;
    expect(listed).toEqual([expect.objectContaining({ publishDate: expected, state: 'QUEUE', integration: expect.objectContaining({ id: telegram.id }) })]);
    expect(listed[0]!.content).toContain('Queued for the next open slot');
    // the slot is taken now: the service's next one for Telegram is later
    const after = (await me.form.api('GET', `/public/v1/find-slot/${telegram.id}`)).json<{ date: string }>().date;
    expect(Date.parse(after)).toBeGreaterThan(Date.parse(expected));
  });

  it('the week view opens scrolled to now: at 16:00 the 16:00 row is on screen', async () => {
    const context = await h.chromium.newContext({ baseURL: h.origin, viewport: { width: 1360, height: 860 }, timezoneId: 'UTC', locale: 'en-GB' });
    await context.addCookies([...me.form.cookies].map(([name, value]) => ({ name, value, url: h.origin })));
    const page = await context.newPage();
    try {
      const today = DateTime.now().setZone(BERLIN).toISODate()!;
      await page.clock.setFixedTime(new Date(berlin(today, '16:00')));
      await page.goto('/calendar?view=week');
      const grid = page.getByRole('region', { name: 'Calendar, scrollable' });
      await grid.waitFor();
      const row = page.locator('td.fc-timegrid-slot-lane[data-time="16:00:00"]');
      await row.waitFor();
      const inView = async () => {
        const g = (await grid.boundingBox())!;
        const r = (await row.boundingBox())!;
        return r.y >= g.y && r.y + r.height <= g.y + g.height;
      };
      await expect.poll(inView).toBe(true);
      // the hour before is the grid's top: 15:00 is on screen too, 07:00 (where it used to open) is not
      const seven = (await page.locator('td.fc-timegrid-slot-lane[data-time="07:00:00"]').boundingBox())!;
      expect(seven.y + seven.height).toBeLessThanOrEqual((await grid.boundingBox())!.y);
      await screenshot(page, 'queue-week-at-now');
    } finally {
      await context.close();
    }
  });

  it('after “Post now” the notice links to the post, and the link opens it', async () => {
    const { page } = me;
    await page.goto('/calendar?view=week');
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.getByRole('button', { name: new RegExp(TELEGRAM_CHAT.title) }).click();
    await dialog.getByLabel('Post text', { exact: true }).fill('Straight out, with a link back');
    await dialog.getByRole('button', { name: 'Post now' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText(`Publishing now on ${TELEGRAM_CHAT.title}.`).waitFor();
    const link = page.getByRole('link', { name: 'Open the post' });
    await screenshot(page, 'queue-post-now-toast');
    const href = (await link.getAttribute('href'))!;
    expect(href).toMatch(/^\/posts\/[0-9a-f-]{36}$/);
    await link.click();
    await page.waitForURL(`${h.origin}${href}`);
    await page.getByText('Straight out, with a link back').first().waitFor();
    const post = (await me.form.api('GET', `/public/v1${href}`)).json<{ content: string; integration: { id: string } }>();
    expect(post.integration.id).toBe(telegram.id);
    expect(post.content).toContain('Straight out, with a link back');
    await screenshot(page, 'queue-post-opened');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(href);
    await page.getByText('Straight out, with a link back').first().waitFor();
    await screenshot(page, 'queue-post-opened-phone');
    await page.setViewportSize({ width: 1360, height: 860 });
  });
});
