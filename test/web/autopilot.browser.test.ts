import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkA11y } from './axe.js';
import { connectTelegramAndBluesky, screenshot, startWebHarness, TELEGRAM_CHAT, type ConnectedChannel, type SignedIn, type WebHarness } from './harness.js';
import { measureLayout } from './layout.js';

const BERLIN = 'Europe/Berlin';

/**
 * Issue 30's pages in Chromium: a repeating post made in the composer and its occurrences on the
 * calendar; a CSV checked through the import page's dry run (its mistakes listed by row and
 * column, nothing created), corrected and imported, and found on the calendar; an evergreen queue
 * made, planned and filled; a feed (served here, on loopback: ALLOW_PRIVATE_TARGETS) added, whose
 * new item is posted once and listed with its post.
 */
let feedItems: { guid: string; title: string }[] = [];
let feedServer: Server;
let feedUrl = '';
beforeAll(async () => {
  feedServer = createServer((_req, res) => {
    const items = feedItems.map((i) => `<item><guid>${i.guid}</guid><title>${i.title}</title><link>https://acme.example/${i.guid}</link></item>`).join('');
    res.writeHead(200, { 'content-type': 'application/rss+xml' });
    res.end(`<?xml version="1.0"?><rss version="2.0"><channel><title>Acme blog</title><link>https://acme.example/</link>${items}</channel></rss>`);
  });
  await new Promise<void>((r) => feedServer.listen(0, '127.0.0.1', r));
  feedUrl = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}/feed.xml`;
});
afterAll(() => new Promise<void>((r) => feedServer.close(() => r())));
describe('autopilot in Chromium: a repeating post from the composer, a CSV through the dry run', () => {
  let h: WebHarness;
  let me: SignedIn;
  let telegram: ConnectedChannel;
  // a month with five Mondays ahead, so the month view shows every occurrence
  const month = DateTime.now().setZone(BERLIN).startOf('month').plus({ months: 2 });
  const firstMonday = month.plus({ days: (8 - month.weekday) % 7 });

  beforeAll(async () => {
    h = await startWebHarness({ env: { ALLOW_PRIVATE_TARGETS: 'true' } });
    me = await h.signUp({ timezone: BERLIN, organization: 'Acme' });
    ({ telegram } = await connectTelegramAndBluesky(me));
  });
  afterAll(async () => h?.close());

  // a repeating post's occurrences are made 30 days ahead: it starts next week
  const nextMonday = DateTime.now().setZone(BERLIN).startOf('week').plus({ weeks: 1 });

  const postsInWindow = async (from = month.minus({ days: 7 }), to = month.plus({ months: 1, days: 7 })) => {
    const res = await me.form.api('GET', `/public/v1/posts?startDate=${encodeURIComponent(from.toUTC().toISO()!)}&endDate=${encodeURIComponent(to.toUTC().toISO()!)}`);
    return res.json<{ posts: { id: string; content: string; seriesId: string | null; publishDate: string }[] }>().posts;
  };

  it('makes a repeating post in the composer (weekly on Monday and Thursday, 6 times) and shows each occurrence on the calendar with the repeat mark', async () => {
    const { page } = me;
    await page.goto(`/calendar?view=week&date=${nextMonday.toISODate()}`);
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.getByRole('button', { name: new RegExp(telegram.name) }).click();
    await dialog.getByLabel('Post text', { exact: true }).fill('Weekly team tip');
    await dialog.getByLabel('Date').fill(nextMonday.toISODate()!);
    await dialog.getByLabel('Time').fill('09:00');
    await dialog.getByLabel('Repeat').selectOption('weekly');
    await dialog.getByRole('checkbox', { name: 'Thursday' }).check();
    expect(await dialog.getByRole('checkbox', { name: 'Monday' }).isChecked()).toBe(true);
    await dialog.getByLabel('Ends').selectOption('after');
    await dialog.getByLabel('Number of posts').fill('6');
    await expect.poll(() => dialog.locator('.compose-repeat-summary').textContent()).toMatch(/Every week on Mon, Thu at 09:00 Europe\/Berlin, 6 times/);
    // Post now and Add to queue make no sense for a repeating post
    expect(await dialog.getByRole('button', { name: 'Post now' }).count()).toBe(0);
    await screenshot(page, 'autopilot-compose-repeat');
    await dialog.getByRole('button', { name: 'Schedule repeating' }).click();
    await dialog.waitFor({ state: 'detached' });

    // six real posts, one series, each at 09:00 Berlin on a Monday or Thursday
    const made = (await postsInWindow(nextMonday, nextMonday.plus({ weeks: 4 }))).filter((p) => p.content.includes('Weekly team tip'));
    expect(made).toHaveLength(6);
    expect(new Set(made.map((p) => p.seriesId)).size).toBe(1);
    const local = made.map((p) => DateTime.fromISO(p.publishDate, { zone: BERLIN }));
    expect(local.every((d) => d.toFormat('HH:mm') === '09:00' && (d.weekday === 1 || d.weekday === 4))).toBe(true);

    // on each week's view, its two occurrences carry the repeat mark
    for (const week of [0, 1, 2]) {
      await page.goto(`/calendar?view=week&date=${nextMonday.plus({ weeks: week }).toISODate()}`);
      const events = page.locator('.post-event', { hasText: 'Weekly team tip' });
      await expect.poll(() => events.count()).toBe(2);
      await expect.poll(() => events.getByRole('img', { name: 'Repeating' }).count()).toBe(2);
      if (week === 1) {
        await events.first().scrollIntoViewIfNeeded();
        await screenshot(page, 'autopilot-calendar-series');
      }
    }

    // the Repeating posts tab lists it as active
    await page.goto('/autopilot/repeating');
    await page.getByText(/Every week on Mon, Thu at 09:00/).first().waitFor();
  });

  it('imports a CSV through the dry run: five kinds of mistakes listed by row and column, nothing made; the corrected file imported and on the calendar', async () => {
    const { page } = me;
    const day = (n: number) => firstMonday.plus({ days: n }).toISODate();
    const bad = [
      'channel,date,timezone,text,type',
      `${TELEGRAM_CHAT.title},${day(1)}T10:00,${BERLIN},Imported Tuesday,schedule`,
      `Nowhere,${day(2)}T10:00,${BERLIN},Imported Wednesday,schedule`,
      `${TELEGRAM_CHAT.title},${day(3)}T10:00,,Imported Thursday,schedule`,
      `${TELEGRAM_CHAT.title},${day(4)}T10:00,Mars/Olympus,Imported Friday,schedule`,
      `${TELEGRAM_CHAT.title},${day(5)}T10:00,${BERLIN},,schedule`,
      `${TELEGRAM_CHAT.title},${day(6)}T10:00,${BERLIN},Imported Sunday,sometime`,
    ].join('\n');
    const good = [
      'channel,date,timezone,text,type',
      `${TELEGRAM_CHAT.title},${day(1)}T10:00,${BERLIN},Imported Tuesday,schedule`,
      `${TELEGRAM_CHAT.title},${day(2)}T10:00,${BERLIN},Imported Wednesday,schedule`,
      `${TELEGRAM_CHAT.title},${day(3)}T10:00,${BERLIN},Imported Thursday,schedule`,
    ].join('\n');
    const before = (await postsInWindow()).length;

    await page.goto('/autopilot/import');
    await page.getByRole('heading', { name: 'Autopilot' }).waitFor();
    await page.getByLabel('File to import').setInputFiles({ name: 'season.csv', mimeType: 'text/csv', buffer: Buffer.from(bad) });
    await page.getByRole('button', { name: 'Check file' }).click();
    const table = page.getByRole('table', { name: /Rows of season\.csv/ });
    await table.waitFor();
    // rows 2–6 each have one mistake, each named with its column
    await expect.poll(() => table.locator('.import-row-bad').count()).toBe(5);
    const problems = (await table.locator('ul.import-problems li').allTextContents()).map((t) => t.trim());
    expect(problems.some((p) => /^channel:/.test(p))).toBe(true);
    expect(problems.some((p) => /^date:/.test(p))).toBe(true);
    expect(problems.some((p) => /^timezone:/.test(p))).toBe(true);
    expect(problems.some((p) => /^text:/.test(p))).toBe(true);
    expect(problems.some((p) => /^type:/.test(p))).toBe(true);
    expect(await page.getByRole('button', { name: /^Import/ }).isDisabled()).toBe(true);
    await screenshot(page, 'autopilot-import-dry-run');
    // nothing was made
    expect((await postsInWindow()).length).toBe(before);

    await page.getByLabel('File to import').setInputFiles({ name: 'season-fixed.csv', mimeType: 'text/csv', buffer: Buffer.from(good) });
    await page.getByRole('button', { name: 'Check file' }).click();
    await page.getByRole('table', { name: /Rows of season-fixed\.csv/ }).waitFor();
    const importButton = page.getByRole('button', { name: 'Import 3 posts' });
    await importButton.waitFor();
    await importButton.click();
    await page.getByText(/Imported 3 posts in 3 groups/).waitFor();
    const imported = (await postsInWindow()).filter((p) => p.content.includes('Imported'));
    expect(imported.map((p) => DateTime.fromISO(p.publishDate, { zone: BERLIN }).toFormat('yyyy-MM-dd HH:mm')).sort()).toEqual([`${day(1)} 10:00`, `${day(2)} 10:00`, `${day(3)} 10:00`]);

    await page.getByRole('link', { name: /See them in the calendar/ }).click();
    await page.waitForURL(/\/calendar/);
    await page.goto(`/calendar?view=week&date=${day(1)}`);
    await page.locator('.post-event', { hasText: 'Imported Wednesday' }).waitFor();
    expect(telegram.id).toBeTruthy();
  });

  it('makes an evergreen queue with an item, shows its plan and fills the free slots', async () => {
    const { page } = me;
    await page.goto('/autopilot/evergreen');
    await page.getByRole('button', { name: 'New queue' }).click();
    const form = page.getByRole('dialog', { name: 'New evergreen queue' });
    await form.getByLabel('Name').fill('Evergreen tips');
    // every second day at most, so its plan beyond the 7 days filled has the item too
    await form.getByLabel('Repeat gap (days)').fill('2');
    await form.getByRole('checkbox', { name: new RegExp(telegram.name) }).check();
    await form.getByRole('button', { name: 'Create queue' }).click();
    await page.waitForURL(/\/autopilot\/evergreen\/[0-9a-f-]{36}$/);
    await page.getByRole('button', { name: 'Add item' }).click();
    const itemForm = page.getByRole('dialog');
    await itemForm.getByLabel('Text').fill('Did you know? Drafts keep their media.');
    await itemForm.getByRole('button', { name: 'Add item' }).click();
    await itemForm.waitFor({ state: 'detached' });
    await page.getByRole('list', { name: 'Items' }).getByText('Did you know? Drafts keep their media.').waitFor();
    // the plan: the channel's free posting times, each with the item it would get
    const plan = page.getByRole('region', { name: 'Plan' });
    await plan.getByLabel('Days ahead').fill('7');
    await plan.getByRole('button', { name: 'Show plan' }).click();
    await plan.getByRole('table', { name: /Planned slots for the next 7 days/ }).getByRole('row').filter({ hasText: 'Did you know?' }).first().waitFor();
    await page.getByRole('button', { name: 'Fill now' }).click();
    await page.getByText(/^Scheduled \d+ posts?\./).waitFor({ timeout: 20_000 });
    await screenshot(page, 'autopilot-evergreen-filled');
    const filled = (await postsInWindow(DateTime.now(), DateTime.now().plus({ days: 30 }))).filter((p) => p.content.includes('Drafts keep their media'));
    expect(filled.length).toBeGreaterThan(0);
    // two weeks ahead, past what was filled: the calendar shows the queue's slots as planned (no post yet)
    await page.goto(`/calendar?view=week&date=${DateTime.now().setZone(BERLIN).plus({ days: 14 }).toISODate()}`);
    const planned = page.locator('.cal-planned-body').filter({ hasText: 'Did you know?' });
    await planned.first().waitFor();
    expect(await planned.first().textContent()).toContain('Planned');
    expect(await planned.first().getAttribute('title')).toMatch(/^Planned by the evergreen queue “Evergreen tips” on .+, not yet created/);
    expect(await page.locator('.cal-planned').count()).toBeGreaterThan(1);
    await planned.first().scrollIntoViewIfNeeded();
    await screenshot(page, 'autopilot-calendar-planned');
    // it has no post to open: a click goes to the queue, where its plan is
    await planned.first().click();
    await page.waitForURL(/\/autopilot\/evergreen\/[0-9a-f-]{36}$/);
  });

  it('adds a feed that posts each new item once, and lists the item with its post', async () => {
    const { page } = me;
    feedItems = [{ guid: 'old-1', title: 'An older article' }];
    await page.goto('/autopilot/feeds');
    await page.getByRole('button', { name: 'Add feed' }).click();
    const form = page.getByRole('dialog');
    await form.getByLabel('Feed URL').fill(feedUrl);
    await form.getByRole('checkbox', { name: new RegExp(telegram.name) }).check();
    await form.getByRole('button', { name: 'Add feed' }).click();
    await form.waitFor({ state: 'detached' });
    await page.getByText('Acme blog').first().waitFor();
    // the back catalogue is not posted; a new article is, once, however often it is polled
    feedItems = [{ guid: 'new-1', title: 'Launch week recap' }, ...feedItems];
    await page.getByRole('button', { name: 'Poll now: Acme blog' }).click();
    await page.getByRole('button', { name: /Recent items/ }).click();
    await page.locator('a[href^="/posts/"]').first().waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Poll now: Acme blog' }).click();
    await screenshot(page, 'autopilot-feed-items');
    await expect.poll(async () => (await postsInWindow(DateTime.now().minus({ days: 1 }), DateTime.now().plus({ days: 1 }))).filter((p) => p.content.includes('Launch week recap')).length).toBe(1);
    expect((await postsInWindow(DateTime.now().minus({ days: 1 }), DateTime.now().plus({ days: 1 }))).filter((p) => p.content.includes('An older article'))).toHaveLength(0);
  });

  it('the autopilot pages pass the accessibility checks, and at phone width nothing scrolls sideways and every target is 44×44', async () => {
    const { page } = me;
    const queues = (await me.form.api('GET', '/public/v1/evergreen')).json<{ id: string }[]>();
    const pages = ['/autopilot/repeating', '/autopilot/evergreen', `/autopilot/evergreen/${queues[0]!.id}`, '/autopilot/feeds', '/autopilot/import'];
    const open = async (path: string) => {
      await page.goto(path);
      await page.getByRole('heading', { name: 'Autopilot' }).waitFor();
      await expect.poll(() => page.locator('.spinner:visible').count()).toBe(0);
      if (path === '/autopilot/feeds') await page.getByRole('button', { name: /Recent items/ }).click();
    };
    for (const path of pages) {
      await open(path);
      await checkA11y(page, `the autopilot page ${path}`);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const problems: string[] = [];
      for (const path of pages) {
        await open(path);
        const m = await measureLayout(page);
        if (m.scrollWidth > m.clientWidth) problems.push(`${path} scrolls sideways; past the edge: ${m.wide.join('; ')}`);
        problems.push(...m.small.map((t) => `${path}: a target under 44×44: ${t}`));
        if (path === '/autopilot/import') await screenshot(page, 'autopilot-import-390');
      }
      expect(problems, `at 390 px:\n${problems.join('\n')}\n`).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }
  });
});
