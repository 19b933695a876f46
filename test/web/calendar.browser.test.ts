import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dragToSlot, scrollSlotIntoView } from './drag.js';
import { screenshot, startWebHarness, TELEGRAM_CHAT, type SignedIn, type WebHarness, connectTelegramAndBluesky } from './harness.js';

const BERLIN = 'Europe/Berlin';

interface PostRow {
  id: string;
  state: string;
  publishDate: string;
}

/** The UTC hover text the app puts on every post (lib/time.ts utcTitle). */
const utc = (iso: string) => `${iso.replace('T', ' ').slice(0, 16)} UTC`;

/** A wall-clock time in Berlin as the API's UTC instant. */
const berlin = (date: string, time: string) => DateTime.fromISO(`${date}T${time}`, { zone: BERLIN }).toUTC().toISO()!;

describe('the calendar in Chromium: posts of every channel in the person’s zone, filters, drag to reschedule', () => {
  let h: WebHarness;
  let me: SignedIn;
  let telegram: string;
  const ids: Record<'queued' | 'draft' | 'published', string> = { queued: '', draft: '', published: '' };
  // next week (Monday first, the en-GB browser's week): the posts planned ahead live there
  const nextWeek = DateTime.now().setZone(BERLIN).startOf('week').plus({ weeks: 1 });
  const day = (n: number) => nextWeek.plus({ days: n }).toISODate()!;
  const queuedAt = berlin(day(1), '10:00');
  const draftAt = berlin(day(2), '15:30');

  async function create(type: 'schedule' | 'draft' | 'now', date: string, content: string, integration = telegram): Promise<string> {
    const res = await me.form.api('POST', '/public/v1/posts', { type, date, shortLink: false, tags: [], posts: [{ integration: { id: integration }, value: [{ content, image: [] }], settings: {} }] });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ postId: string }[]>()[0]!.postId;
  }
  async function post(id: string): Promise<PostRow> {
    return (await me.form.api('GET', `/public/v1/posts/${id}`)).json<PostRow>();
  }

  beforeAll(async () => {
    h = await startWebHarness();
    me = await h.signUp({ timezone: BERLIN, organization: 'Acme' });
    const channels = await connectTelegramAndBluesky(me);
    telegram = channels.telegram.id;
    const bluesky = channels.bluesky.id;

    ids.queued = await create('schedule', queuedAt, '<p>Spring launch: <strong>doors open</strong> at noon</p><p>See you there</p>');
    ids.draft = await create('draft', draftAt, '<p>Pricing FAQ &amp; answers</p>');
    ids.published = await create('now', '', '<p>We are live on Telegram</p>');
    // a few more across the week, so the week reads like a real one
    await create('schedule', berlin(day(0), '09:00'), '<p>Monday kick-off: what ships this week</p>', bluesky);
    await create('schedule', berlin(day(3), '12:30'), '<p>Lunchtime demo in the channel</p>');
    await create('draft', berlin(day(4), '17:00'), '<p>Weekend reading list (draft)</p>', bluesky);
  });
  afterAll(async () => h?.close());

  it('shows the week’s posts at Berlin wall-clock time, coloured and labelled by state, with the UTC time on hover', async () => {
    // the worker publishes the "now" post to the Telegram simulator
    await expect.poll(async () => (await post(ids.published)).state, { timeout: 30_000, interval: 250 }).toBe('PUBLISHED');
    expect(h.telegram.messages.map((m) => m.text)).toContain('We are live on Telegram');

    const { page } = me;
    await page.goto(`/calendar?view=week&date=${day(0)}`);
    await expect.poll(() => page.getByText('Times in').textContent()).toContain(BERLIN);

    const queued = page.locator(`td.fc-timegrid-col[data-date="${day(1)}"] .post-event`, { hasText: 'Spring launch' });
    await queued.waitFor();
    expect(await queued.getAttribute('class')).toContain('post-queue');
    expect(await queued.locator('.cal-event-time').textContent()).toBe('10:00');
    expect(await queued.locator('.cal-event-state').textContent()).toBe('Queued');
    expect(await queued.locator('.cal-event-channel').textContent()).toBe(TELEGRAM_CHAT.title);
    // the first line of the HTML content, as text
    expect(await queued.locator('.cal-event-text').textContent()).toBe('Spring launch: doors open at noon');
    const title = (await queued.locator('.cal-event').getAttribute('title'))!;
    expect(title).toContain(utc(queuedAt));
    expect(title).toContain('Queued');
    // the state's colour is the left edge (--queue)
    const edge = await queued.evaluate((el) => {
      // (runs in the page: the window's getComputedStyle, typed here without the DOM library)
      const w = globalThis as unknown as { getComputedStyle(e: unknown): { borderLeftColor: string; getPropertyValue(n: string): string }; document: { documentElement: unknown } };
      return [w.getComputedStyle(el).borderLeftColor, w.getComputedStyle(w.document.documentElement).getPropertyValue('--queue').trim()];
    });
    expect(edge).toEqual(['rgb(35, 84, 214)', '#2354d6']);
    expect(await queued.getAttribute('class')).toContain('fc-event-draggable');

    const draft = page.locator(`td.fc-timegrid-col[data-date="${day(2)}"] .post-event`, { hasText: 'Pricing FAQ & answers' });
    await draft.waitFor();
    expect(await draft.getAttribute('class')).toContain('post-draft');
    expect(await draft.locator('.cal-event-time').textContent()).toBe('15:30');
    expect(await draft.locator('.cal-event-state').textContent()).toBe('Draft');
    expect(await draft.locator('.cal-event').getAttribute('title')).toContain(utc(draftAt));

    // the published post sits in this week, where it went out, and does not move
    await page.getByRole('button', { name: /This week|Today/ }).click();
    const published = page.locator('.post-event', { hasText: 'We are live on Telegram' });
    await published.waitFor();
    expect(await published.getAttribute('class')).toContain('post-published');
    // it can be picked up only to be told it stays (the drop is refused)
    expect(await published.getAttribute('class')).toContain('post-fixed');
    expect(await published.locator('.cal-event-state').textContent()).toBe('Published');
  });

  it('the state filter hides the other states and survives a reload', async () => {
    const { page } = me;
    await page.goto(`/calendar?view=week&date=${day(0)}`);
    await page.locator('.post-event', { hasText: 'Pricing FAQ' }).waitFor();
    await page.getByRole('checkbox', { name: 'Draft' }).uncheck();
    await page.locator('.post-event', { hasText: 'Pricing FAQ' }).waitFor({ state: 'detached' });
    expect(await page.locator('.post-event', { hasText: 'Spring launch' }).count()).toBe(1);
    await page.waitForURL(/state=queue/);
    expect(page.url()).not.toContain('state=draft');

    await page.reload();
    await page.locator('.post-event', { hasText: 'Spring launch' }).waitFor();
    expect(await page.locator('.post-event.post-draft').count()).toBe(0);
    expect(await page.getByRole('checkbox', { name: 'Draft' }).isChecked()).toBe(false);
    // only drafts: the queued posts go
    await page.getByRole('checkbox', { name: 'Draft' }).check();
    await page.getByRole('checkbox', { name: 'Queued' }).uncheck();
    await page.locator('.post-event', { hasText: 'Spring launch' }).waitFor({ state: 'detached' });
    expect(await page.locator('.post-event.post-draft').count()).toBe(2);
    await page.getByRole('checkbox', { name: 'Queued' }).check();
    await page.waitForURL((url) => !url.search.includes('state='));
  });

  it('dragging a queued post moves it through the API to the slot’s Berlin time; a published post does not move', async () => {
    const { page } = me;
    await page.goto(`/calendar?view=week&date=${day(0)}`);
    const queued = page.locator('.post-event', { hasText: 'Spring launch' });
    await queued.waitFor();
    await dragToSlot(page, queued, day(3), '13:00');
    const expected = berlin(day(3), '13:00');
    await expect.poll(async () => (await post(ids.queued)).publishDate, { timeout: 10_000 }).toBe(expected);
    expect((await post(ids.queued)).state).toBe('QUEUE');
    await page.getByRole('status').filter({ hasText: 'Moved “Spring launch: doors open at noon” on Acme News to' }).waitFor();
    const moved = page.locator(`td.fc-timegrid-col[data-date="${day(3)}"] .post-event`, { hasText: 'Spring launch' });
    await moved.waitFor();
    expect(await moved.locator('.cal-event').getAttribute('title')).toContain(utc(expected));
    expect(page.url()).toContain('/calendar');
    await screenshot(page, 'calendar-week');

    // a refusal: the post was deleted meanwhile (another tab, the API); the drop is undone with the API's reason
    const doomed = await create('schedule', berlin(day(4), '10:00'), '<p>Soon to be deleted</p>');
    await page.reload();
    const gone = page.locator(`td.fc-timegrid-col[data-date="${day(4)}"] .post-event`, { hasText: 'Soon to be deleted' });
    await gone.waitFor();
    expect((await me.form.api('DELETE', `/public/v1/posts/${doomed}`)).statusCode).toBe(200);
    await dragToSlot(page, gone, day(5), '11:00');
    await page.getByRole('alert').filter({ hasText: 'Group of posts not found' }).waitFor();
    // back where it was until the calendar asks again, then gone
    await gone.waitFor({ state: 'detached' });
    expect(await page.locator(`td.fc-timegrid-col[data-date="${day(5)}"] .post-event`, { hasText: 'Soon to be deleted' }).count()).toBe(0);

    // the published post: no dragging, and its date stays
    const before = (await post(ids.published)).publishDate;
    await page.getByRole('button', { name: /This week|Today/ }).click();
    const published = page.locator('.post-event', { hasText: 'We are live on Telegram' });
    await published.waitFor();
    await published.scrollIntoViewIfNeeded();
    const box = (await published.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + 6);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 10, box.y + 60, { steps: 5 });
    await page.mouse.move(box.x + box.width / 2 + 10, box.y + 140, { steps: 8 });
    await page.getByText('Published posts stay where they went out.').waitFor();
    await page.mouse.up();
    expect(await page.locator('.fc-event-mirror').count()).toBe(0);
    expect((await post(ids.published)).publishDate).toBe(before);
    expect(new URL(page.url()).pathname).toBe('/calendar');
  });

  it('month and list views; a click on a post opens it, a click on a free slot opens the composer', async () => {
    const { page } = me;
    await page.goto(`/calendar?view=week&date=${day(0)}`);
    await page.locator('.post-event', { hasText: 'Pricing FAQ' }).waitFor();

    await page.getByRole('button', { name: 'Month', exact: true }).click();
    await page.locator('.fc-dayGridMonth-view').waitFor();
    await page.locator(`.fc-daygrid-day[data-date="${day(2)}"] .post-event`, { hasText: 'Pricing FAQ' }).waitFor();
    await page.waitForURL(/view=month/);
    await screenshot(page, 'calendar-month');

    await page.getByRole('button', { name: 'List', exact: true }).click();
    await page.locator('.fc-listWeek-view').waitFor();
    await page.locator('.fc-list-event', { hasText: 'Lunchtime demo' }).waitFor();
    await page.waitForURL(/view=list/);
    // the view and the week are kept on reload
    await page.reload();
    await page.locator('.fc-list-event', { hasText: 'Pricing FAQ' }).waitFor();

    await page.getByRole('button', { name: 'Week', exact: true }).click();
    await page.locator(`td.fc-timegrid-col[data-date="${day(4)}"]`).waitFor();
    // a free slot in the future opens the composer at that time (the grid opens at now: 08:00 is brought into view)
    await scrollSlotIntoView(page.locator('td.fc-timegrid-slot-lane[data-time="08:00:00"]'));
    const lane = (await page.locator('td.fc-timegrid-slot-lane[data-time="08:00:00"]').boundingBox())!;
    const col = (await page.locator(`td.fc-timegrid-col[data-date="${day(5)}"]`).boundingBox())!;
    await page.mouse.click(col.x + col.width / 2, lane.y + lane.height / 2);
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    await page.locator('.post-event', { hasText: 'Pricing FAQ' }).click();
    await page.waitForURL(`${h.origin}/posts/${ids.draft}`);
  });

  it('on a narrow screen the calendar opens as a list', async () => {
    const { page } = me;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/calendar?date=${day(0)}`);
    await page.locator('.fc-listWeek-view').waitFor();
    await page.locator('.fc-list-event', { hasText: 'Spring launch' }).waitFor();
    expect(await page.locator('.fc-list-event', { hasText: 'Pricing FAQ' }).locator('.cal-event-state').textContent()).toBe('Draft');
    await screenshot(page, 'calendar-narrow');
    await page.setViewportSize({ width: 1360, height: 860 });
  });
});
