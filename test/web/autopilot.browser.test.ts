import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelegramAndBluesky, screenshot, startWebHarness, TELEGRAM_CHAT, type ConnectedChannel, type SignedIn, type WebHarness } from './harness.js';

const BERLIN = 'Europe/Berlin';

/**
 * Issue 30's pages in Chromium: a repeating post made in the composer and its occurrences on the
 * calendar, then a CSV checked through the import page's dry run (its mistakes listed by row and
 * column, nothing created), corrected and imported, and found on the calendar.
 */
describe('autopilot in Chromium: a repeating post from the composer, a CSV through the dry run', () => {
  let h: WebHarness;
  let me: SignedIn;
  let telegram: ConnectedChannel;
  // a month with five Mondays ahead, so the month view shows every occurrence
  const month = DateTime.now().setZone(BERLIN).startOf('month').plus({ months: 2 });
  const firstMonday = month.plus({ days: (8 - month.weekday) % 7 });

  beforeAll(async () => {
    h = await startWebHarness();
    me = await h.signUp({ timezone: BERLIN, organization: 'Acme' });
    ({ telegram } = await connectTelegramAndBluesky(me));
  });
  afterAll(async () => h?.close());

  const postsInWindow = async () => {
    const res = await me.form.api('GET', `/public/v1/posts?startDate=${encodeURIComponent(month.minus({ days: 7 }).toUTC().toISO()!)}&endDate=${encodeURIComponent(month.plus({ months: 1, days: 7 }).toUTC().toISO()!)}`);
    return res.json<{ posts: { id: string; content: string; seriesId: string | null; publishDate: string }[] }>().posts;
  };

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
});
