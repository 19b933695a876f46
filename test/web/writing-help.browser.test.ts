import { eq } from 'drizzle-orm';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { posts } from '../../src/db/schema/posts.js';
import { startOpenAiSimulator, textOf, type OpenAiSimulator } from '../simulators/openai.simulator.js';
import { checkA11y } from './axe.js';
import { connectTelegramAndBluesky, screenshot, startWebHarness, type ConnectedChannel, type SignedIn, type WebHarness } from './harness.js';
import { checkAtPhoneWidth } from './layout.js';

interface PostRow {
  id: string;
  state: string;
  content: string;
  group: string;
  integration: { id: string };
}

const SHARED =
  'Our spring collection is here: new colours, new sizes, and the same care in every stitch. Read the whole story on the blog https://acme.example/blog/2026/spring-collection-launch?ref=newsletter';
const TELEGRAM_TEXT = 'Spring is here at Acme 🌸 New colours, new sizes, the same care in every stitch. The whole story: https://acme.example/blog/2026/spring-collection-launch?ref=newsletter';
const BLUESKY_TEXT = 'Spring at Acme: new colours, new sizes 🌸 https://acme.example/blog/2026/spring-collection-launch?ref=newsletter';

/**
 * Issue 32's browser "Done when": with the OpenAI simulator set as the organisation's model, a
 * draft for Telegram and Bluesky is rewritten for both platforms in the composer (the suggestions
 * stream in), one suggestion is accepted, "Shorten links" is turned on, and the post is scheduled:
 * the API has the accepted text on that channel and `shortLink` on its rows.
 */
describe('writing help in the composer, in Chromium (issue 32)', () => {
  let h: WebHarness;
  let ai: OpenAiSimulator;
  let me: SignedIn;
  let telegram: ConnectedChannel;
  let bluesky: ConnectedChannel;

  beforeAll(async () => {
    ai = await startOpenAiSimulator({ apiKey: 'sk-test-writing-help' });
    // the model's address is a loopback one: the service must be allowed to reach it
    h = await startWebHarness({ env: { ALLOW_PRIVATE_TARGETS: 'true' } });
    me = await h.signUp({ organization: 'Acme', timezone: 'UTC' });
    ({ telegram, bluesky } = await connectTelegramAndBluesky(me));
    const put = await me.form.api('PUT', '/public/v1/ai/settings', { baseUrl: ai.baseUrl, model: 'gpt-4o-mini', apiKey: 'sk-test-writing-help' });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json<{ configured: boolean }>().configured).toBe(true);
    // each platform gets its own rewrite (the prompt names it), written slowly enough to be seen streaming
    ai.setReply((messages) => {
      const all = messages.map(textOf).join('\n');
      return /Bluesky/.test(all) ? BLUESKY_TEXT : TELEGRAM_TEXT;
    });
    ai.setChunkDelay(40);
  });
  afterAll(async () => {
    await h?.close();
    await ai?.close();
  });

  it('rewrites a draft for two platforms as the suggestions stream in, accepts one, and schedules it with short links on', async () => {
    const { page } = me;
    await page.goto('/calendar');
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.getByRole('button', { name: new RegExp(telegram.name) }).click();
    await dialog.getByRole('button', { name: new RegExp(bluesky.name) }).click();
    await expect.poll(() => dialog.getByRole('button', { name: new RegExp(bluesky.name) }).getAttribute('aria-pressed')).toBe('true');
    await dialog.getByLabel('Post text', { exact: true }).fill(SHARED);
    // tomorrow morning (the default, the next full hour, can be a minute away: the worker would publish it)
    await dialog.getByLabel('Date', { exact: true }).fill(DateTime.utc().plus({ days: 1 }).toISODate());
    await dialog.getByLabel('Time', { exact: true }).fill('09:00');

    await dialog.getByRole('button', { name: 'Writing help' }).click();
    await dialog.getByRole('radio', { name: 'Rewrite' }).check();
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/public/v1/ai/rewrite');
    await dialog.getByRole('button', { name: 'Rewrite', exact: true }).click();
    const res = await answer;
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toContain('text/event-stream');

    // while the model writes: part of the text is there, the counter says so, and nothing can be used yet
    const tgSuggestion = dialog.getByLabel(`Text suggested for ${telegram.name}`, { exact: true });
    await expect.poll(async () => (await tgSuggestion.inputValue()).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const partial = await tgSuggestion.inputValue();
    expect(TELEGRAM_TEXT.startsWith(partial) && partial.length < TELEGRAM_TEXT.length, `streaming: “${partial}”`).toBe(true);
    expect(await dialog.getByRole('button', { name: `Use this for ${telegram.name}` }).isDisabled()).toBe(true);

    // done: both suggestions whole, each counted against its platform's limit
    await expect.poll(() => tgSuggestion.inputValue(), { timeout: 20_000 }).toBe(TELEGRAM_TEXT);
    const skySuggestion = dialog.getByLabel(`Text suggested for ${bluesky.name}`, { exact: true });
    await expect.poll(() => skySuggestion.inputValue(), { timeout: 20_000 }).toBe(BLUESKY_TEXT);
    const useTg = dialog.getByRole('button', { name: `Use this for ${telegram.name}` });
    await expect.poll(() => useTg.isEnabled(), { timeout: 20_000 }).toBe(true);
    const skyCard = dialog.getByRole('listitem', { name: `Suggestion for ${bluesky.name}` });
    expect(await skyCard.textContent()).toContain(`/ 300`);
    expect(ai.completions().filter((c) => c.stream)).toHaveLength(2);
    await dialog.getByRole('list', { name: 'Suggestions' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'writing-help-suggestions');
    await checkA11y(page, 'the composer with writing-help suggestions');

    // at phone width the panel fits and its targets are 44 px (looked at with the suggestions in view)
    await page.setViewportSize({ width: 390, height: 844 });
    await dialog.getByRole('button', { name: `Use this for ${telegram.name}` }).scrollIntoViewIfNeeded();
    await checkAtPhoneWidth(page, 'writing-help-390', /writing-help|Use this|Shorten links|Rewrite|Stop|Instructions/);

    await useTg.click();
    await dialog.getByText(`Used the suggestion for ${telegram.name}.`).waitFor();
    expect(await dialog.getByRole('tab', { name: new RegExp(telegram.name) }).textContent()).toContain('own text');

    // short links on: the counters count each link as a short link of the organisation's shortener
    const skyCounter = dialog.locator(`.compose-counter[data-channel="${bluesky.id}"] .compose-counter-value`).first();
    expect(await skyCounter.textContent()).toBe(`${SHARED.length} / 300`);
    await dialog.getByRole('switch', { name: 'Shorten links' }).check();
    const hint = dialog.getByText(/Links are shortened when the post is published; each counts as \d+ characters\./);
    await hint.waitFor();
    const short = Number(/counts as (\d+)/.exec((await hint.textContent()) ?? '')![1]);
    const url = /https:\/\/\S+/.exec(SHARED)![0];
    await expect.poll(() => skyCounter.textContent()).toBe(`${SHARED.length - url.length + short} / 300`);
    // the preview counts the same
    expect(await dialog.getByRole('article', { name: `Preview on ${bluesky.name}` }).textContent()).toContain(`${SHARED.length - url.length + short} / 300`);
    await dialog.locator('.compose-short-links').scrollIntoViewIfNeeded();
    await screenshot(page, 'writing-help-short-links');

    await dialog.getByRole('button', { name: 'Schedule', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText(new RegExp(`Scheduled on ${telegram.name} and ${bluesky.name}`)).waitFor();

    // through the API: the accepted text on Telegram, the shared text on Bluesky, both with short links
    const now = DateTime.utc();
    const q = new URLSearchParams({ startDate: now.minus({ days: 1 }).toISO(), endDate: now.plus({ days: 2 }).toISO() });
    const list = (await me.form.api('GET', `/public/v1/posts?${q.toString()}`)).json<{ posts: PostRow[] }>().posts;
    const tgPost = list.find((p) => p.integration.id === telegram.id)!;
    const skyPost = list.find((p) => p.integration.id === bluesky.id)!;
    expect(tgPost.state).toBe('QUEUE');
    expect(tgPost.content).toBe(`<p>${TELEGRAM_TEXT}</p>`);
    expect(skyPost.content).toBe(`<p>${SHARED}</p>`);
    expect(skyPost.group).toBe(tgPost.group);
    // `shortLink` is stored on each row (the posts API does not answer it)
    const rows = await h.t.deps.database.db.select({ id: posts.id, shortLink: posts.shortLink }).from(posts).where(eq(posts.group, tgPost.group));
    expect(rows.map((r) => r.shortLink)).toEqual([true, true]);
    // nothing was published or sent to a platform by writing help
    expect(h.telegram.log.filter((r) => r.method === 'POST' && /sendMessage|sendPhoto/.test(r.path))).toEqual([]);
  });

  it('a rewrite the model keeps writing too long for Bluesky is shown with its count and note but cannot be used; the model was asked once more', async () => {
    const { page } = me;
    const before = ai.completions().length;
    ai.setChunkDelay(0);
    ai.setReply((messages) => (/Bluesky/.test(messages.map(textOf).join('\n')) ? `Spring at Acme ${'and more '.repeat(40)}` : TELEGRAM_TEXT));
    await page.goto('/calendar');
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.getByRole('button', { name: new RegExp(bluesky.name) }).click();
    await dialog.getByLabel('Post text', { exact: true }).fill(SHARED);
    await dialog.getByRole('button', { name: 'Writing help' }).click();
    await dialog.getByRole('radio', { name: 'Rewrite' }).check();
    await dialog.getByRole('button', { name: 'Rewrite', exact: true }).click();
    const card = dialog.getByRole('listitem', { name: `Suggestion for ${bluesky.name}` });
    const use = card.getByRole('button', { name: `Use this for ${bluesky.name}` });
    await card.locator('p.error').waitFor({ timeout: 20_000 });
    expect(await use.isDisabled()).toBe(true);
    expect(await card.textContent()).toMatch(/\d+ \/ 300/);
    // the first answer and one request to shorten it
    expect(ai.completions().length - before).toBe(2);
    await card.scrollIntoViewIfNeeded();
    await screenshot(page, 'writing-help-too-long');
    // the shared text is untouched
    expect(await dialog.getByLabel('Post text', { exact: true }).inputValue()).toBe(SHARED);
  });
});
