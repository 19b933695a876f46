import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dragToSlot } from './drag.js';
import { screenshot, startWebHarness, TELEGRAM_CHAT, type SignedIn, type WebHarness, connectTelegramAndBluesky } from './harness.js';

const BERLIN = 'Europe/Berlin';

/** A wall-clock time in Berlin as the API's UTC instant. */
const berlin = (date: string, time: string) => DateTime.fromISO(`${date}T${time}`, { zone: BERLIN }).toUTC().toISO()!;

describe('the calendar in Chromium: a post made for several channels is one event, moved whole, and every move can be undone', () => {
  let h: WebHarness;
  let me: SignedIn;
  let telegram: string;
  let bluesky: string;
  let launch: { group: string; ids: string[] };
  const nextWeek = DateTime.now().setZone(BERLIN).startOf('week').plus({ weeks: 1 });
  const day = (n: number) => nextWeek.plus({ days: n }).toISODate()!;
  const launchAt = berlin(day(1), '10:00');

  async function createGroup(type: 'schedule' | 'now', date: string, content: string) {
    const res = await me.form.api('POST', '/public/v1/posts', {
      type,
      date,
      shortLink: false,
      tags: [],
      posts: [telegram, bluesky].map((id) => ({ integration: { id }, value: [{ content, image: [] }], settings: {} })),
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<{ postId: string; group: string }[]>();
    return { group: created[0]!.group, ids: created.map((c) => c.postId) };
  }
  const datesOf = async (ids: string[]) => Promise.all(ids.map(async (id) => (await me.form.api('GET', `/public/v1/posts/${id}`)).json<{ publishDate: string }>().publishDate));
  const statesOf = async (ids: string[]) => Promise.all(ids.map(async (id) => (await me.form.api('GET', `/public/v1/posts/${id}`)).json<{ state: string }>().state));

  beforeAll(async () => {
    h = await startWebHarness();
    me = await h.signUp({ timezone: BERLIN, organization: 'Acme' });
    const channels = await connectTelegramAndBluesky(me);
    telegram = channels.telegram.id;
    bluesky = channels.bluesky.id;
    launch = await createGroup('schedule', launchAt, '<p>Launch day: the doors open at noon</p>');
  });
  afterAll(async () => h?.close());

  it('the week shows one event for the two channels, each an avatar with its state, wide enough for its time and text', async () => {
    const { page } = me;
    await page.goto(`/calendar?view=week&date=${day(0)}`);
    const events = page.locator(`td.fc-timegrid-col[data-date="${day(1)}"] .post-event`);
    await events.first().waitFor();
    expect(await events.count()).toBe(1);
    const event = events.first();
    expect(await event.locator('.cal-channel').count()).toBe(2);
    const labels = await event.locator('.cal-channel .visually-hidden').allTextContents();
    expect(labels.sort()).toEqual([`${TELEGRAM_CHAT.title} (Telegram): Queued`, expect.stringMatching(/ \(Bluesky\): Queued$/)].sort());
    expect(await event.locator('.cal-channels').getAttribute('aria-label')).toBe('2 channels');
    expect(await event.locator('.cal-event-time').textContent()).toBe('10:00');
    expect(await event.locator('.cal-event-text').textContent()).toBe('Launch day: the doors open at noon');
    // not a sliver: the event spans its day's column, and the time is not cut
    const column = (await page.locator(`td.fc-timegrid-col[data-date="${day(1)}"]`).boundingBox())!;
    const box = (await event.boundingBox())!;
    expect(box.width).toBeGreaterThan(column.width * 0.8);
    expect(await event.locator('.cal-event-time').evaluate((el) => (el as unknown as { scrollWidth: number; clientWidth: number }).scrollWidth <= (el as unknown as { clientWidth: number }).clientWidth)).toBe(true);
    await screenshot(page, 'calendar-group-week');

    // the month and the day views show it once too
    await page.goto(`/calendar?view=month&date=${day(1)}`);
    await page.locator(`.fc-daygrid-day[data-date="${day(1)}"] .post-event`).first().waitFor();
    expect(await page.locator(`.fc-daygrid-day[data-date="${day(1)}"] .post-event`).count()).toBe(1);
    expect(await page.locator(`.fc-daygrid-day[data-date="${day(1)}"] .post-event .cal-channel`).count()).toBe(2);
    await page.goto(`/calendar?view=day&date=${day(1)}`);
    await page.locator('.fc-timeGridDay-view .post-event').first().waitFor();
    expect(await page.locator('.fc-timeGridDay-view .post-event').count()).toBe(1);
    await screenshot(page, 'calendar-group-day');

    // a phone: still one event, with its time and the start of its text
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/calendar?view=week&date=${day(0)}`);
    const narrow = page.locator(`td.fc-timegrid-col[data-date="${day(1)}"] .post-event`);
    await narrow.first().waitFor();
    expect(await narrow.count()).toBe(1);
    await narrow.first().scrollIntoViewIfNeeded();
    expect(await narrow.first().locator('.cal-event-time').isVisible()).toBe(true);
    expect(await narrow.first().locator('.cal-event-time').evaluate((el) => (el as unknown as { scrollWidth: number; clientWidth: number }).scrollWidth <= (el as unknown as { clientWidth: number }).clientWidth)).toBe(true);
    expect(await narrow.first().locator('.cal-event-text').isVisible()).toBe(true);
    await screenshot(page, 'calendar-group-week-phone');
    await page.setViewportSize({ width: 1360, height: 860 });
  });

  it('dragging the event moves both posts; Undo (a click, or Ctrl+Z) moves both back', async () => {
    const { page } = me;
    await page.goto(`/calendar?view=week&date=${day(0)}`);
    const event = page.locator(`td.fc-timegrid-col[data-date="${day(1)}"] .post-event`, { hasText: 'Launch day' });
    await event.waitFor();
    await dragToSlot(page, event, day(3), '13:00');
    const target = berlin(day(3), '13:00');
    await expect.poll(() => datesOf(launch.ids), { timeout: 10_000 }).toEqual([target, target]);
    expect(await statesOf(launch.ids)).toEqual(['QUEUE', 'QUEUE']);
    const toast = page.getByRole('status').filter({ hasText: 'Moved “Launch day: the doors open at noon” on' });
    await toast.waitFor();
    expect(await toast.textContent()).toMatch(new RegExp(`on (${TELEGRAM_CHAT.title} and .+|.+ and ${TELEGRAM_CHAT.title}) to Thu`));
    expect(await toast.getAttribute('aria-live')).toBe('polite');
    await page.locator(`td.fc-timegrid-col[data-date="${day(3)}"] .post-event`, { hasText: 'Launch day' }).waitFor();
    expect(await page.locator('.post-event', { hasText: 'Launch day' }).count()).toBe(1);
    await screenshot(page, 'calendar-group-moved');

    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => datesOf(launch.ids), { timeout: 10_000 }).toEqual([launchAt, launchAt]);
    await page.getByRole('status').filter({ hasText: 'Moved back to' }).waitFor();
    await page.locator(`td.fc-timegrid-col[data-date="${day(1)}"] .post-event`, { hasText: 'Launch day' }).waitFor();
    expect(await page.getByRole('button', { name: 'Undo' }).count()).toBe(0);

    // again, undone from the keyboard
    await dragToSlot(page, page.locator('.post-event', { hasText: 'Launch day' }), day(4), '09:00');
    await expect.poll(() => datesOf(launch.ids), { timeout: 10_000 }).toEqual([berlin(day(4), '09:00'), berlin(day(4), '09:00')]);
    await page.getByRole('button', { name: 'Undo' }).waitFor();
    await page.keyboard.press('Control+z');
    await expect.poll(() => datesOf(launch.ids), { timeout: 10_000 }).toEqual([launchAt, launchAt]);
  });

  it('a group that went out does not move: the drag is refused with the reason', async () => {
    const sent = await createGroup('now', '', '<p>We are live everywhere</p>');
    await expect.poll(() => statesOf(sent.ids), { timeout: 30_000, interval: 250 }).toEqual(['PUBLISHED', 'PUBLISHED']);
    const before = await datesOf(sent.ids);
    const { page } = me;
    await page.goto('/calendar?view=week');
    const event = page.locator('.post-event', { hasText: 'We are live everywhere' });
    await event.waitFor();
    expect(await event.count()).toBe(1);
    expect(await event.locator('.cal-channel.post-published').count()).toBe(2);
    await event.scrollIntoViewIfNeeded();
    const box = (await event.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + 6);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 10, box.y + 60, { steps: 5 });
    await page.mouse.move(box.x + box.width / 2 + 10, box.y + 140, { steps: 8 });
    await page.getByText('Published posts stay where they went out.').waitFor();
    await page.mouse.up();
    expect(await datesOf(sent.ids)).toEqual(before);
    expect(await page.getByRole('button', { name: 'Undo' }).count()).toBe(0);
  });
});
