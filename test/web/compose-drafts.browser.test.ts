import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkA11y } from './axe.js';
import { screenshot, startWebHarness, TELEGRAM_BOT, TELEGRAM_CHAT, type SignedIn, type WebHarness } from './harness.js';

/**
 * Issue 25, item 6: the composer throws no work away. Closing it with something typed asks first
 * (Escape, a click outside, the close button), and what was typed is kept in the browser so a
 * reload brings it back; scheduling the post clears it.
 */
describe('the composer in Chromium keeps what was typed', () => {
  let h: WebHarness;
  let me: SignedIn;
  let telegram: { id: string; name: string };

  /** The composer drafts this browser holds (storage keys → stored text of the first item). */
  async function storedDrafts(): Promise<Record<string, string>> {
    return me.page.evaluate<Record<string, string>>(
      `Object.fromEntries(Object.keys(localStorage).filter((k) => k.startsWith('tidings.compose-draft')).map((k) => [k, (JSON.parse(localStorage.getItem(k)).shared[0] || {}).text]))`,
    );
  }

  beforeAll(async () => {
    h = await startWebHarness();
    me = await h.signUp({ organization: 'Acme' });
    const tg = await me.form.api('POST', '/public/v1/social/telegram', { botToken: TELEGRAM_BOT, chatId: `@${TELEGRAM_CHAT.username}` });
    expect(tg.statusCode, tg.body).toBe(201);
    telegram = tg.json<{ id: string; name: string }>();
  });
  afterAll(async () => h?.close());

  it('Escape and a click outside ask “Discard this post?”; Keep editing keeps the text; Discard closes and forgets it', async () => {
    const { page } = me;
    await page.goto('/calendar');
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    // untouched: Escape closes at once
    await dialog.getByLabel('Post text', { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'New post' }).click();
    await dialog.getByRole('button', { name: new RegExp(telegram.name) }).click();
    const text = dialog.getByLabel('Post text', { exact: true });
    await text.fill('Doors open at noon. Bring a friend!');
    await page.keyboard.press('Escape');
    const ask = page.getByRole('alertdialog', { name: 'Discard this post?' });
    await ask.waitFor();
    expect(await ask.textContent()).toContain('What you wrote and chose here will be lost.');
    // the safe answer has the focus: Enter keeps editing
    expect(await page.evaluate<string | null>('document.activeElement && document.activeElement.textContent')).toBe('Keep editing');
    await screenshot(page, 'compose-discard');
    await checkA11y(page, 'the discard question');
    await ask.getByRole('button', { name: 'Keep editing' }).click();
    await ask.waitFor({ state: 'detached' });
    expect(await text.inputValue()).toBe('Doors open at noon. Bring a friend!');
    expect(await dialog.isVisible()).toBe(true);

    // a click outside the composer (on its overlay, top left corner) asks too
    await page.mouse.click(4, 4);
    await ask.waitFor();
    // and a click outside the question does not answer it
    await page.mouse.click(4, 4);
    expect(await ask.isVisible()).toBe(true);
    await ask.getByRole('button', { name: 'Keep editing' }).click();
    await ask.waitFor({ state: 'detached' });

    // at phone width
    await page.setViewportSize({ width: 390, height: 844 });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await ask.waitFor();
    await screenshot(page, 'compose-discard-phone');
    await page.setViewportSize({ width: 1360, height: 860 });

    await ask.getByRole('button', { name: 'Discard' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await ask.count()).toBe(0);
    expect(await storedDrafts()).toEqual({});
    // reopened: empty, nothing restored
    await page.getByRole('button', { name: 'New post' }).click();
    expect(await dialog.getByLabel('Post text', { exact: true }).inputValue()).toBe('');
    expect(await dialog.getByText('Restored your unsaved draft').count()).toBe(0);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('typed, then the page reloaded (the browser asks first): reopening the composer restores the text; scheduling it clears the draft', async () => {
    const { page } = me;
    const unloadQuestions: string[] = [];
    page.on('dialog', (d) => {
      unloadQuestions.push(d.type());
      void d.accept();
    });
    await page.goto('/calendar');
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.getByRole('button', { name: new RegExp(telegram.name) }).click();
    const words = 'Pricing FAQ: every answer in one place';
    await dialog.getByLabel('Post text', { exact: true }).fill(words);
    // two days ahead at 15:45 (the person's zone is the browser's, UTC)
    const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    await dialog.getByLabel('Date').fill(day);
    await dialog.getByLabel('Time').fill('15:45');
    // kept as it is typed, under this organisation's key for a new post
    await expect.poll(async () => Object.values(await storedDrafts())).toEqual([words]);
    expect(Object.keys(await storedDrafts())[0]).toMatch(new RegExp(`:${me.organizationId}:new$`));

    await page.reload();
    expect(unloadQuestions).toEqual(['beforeunload']);
    await page.getByRole('button', { name: 'New post' }).click();
    await dialog.getByText('Restored your unsaved draft').waitFor();
    expect(await dialog.getByLabel('Post text', { exact: true }).inputValue()).toBe(words);
    expect(await dialog.getByLabel('Date').inputValue()).toBe(day);
    expect(await dialog.getByLabel('Time').inputValue()).toBe('15:45');
    expect(await dialog.getByRole('button', { name: new RegExp(telegram.name) }).getAttribute('aria-pressed')).toBe('true');
    await screenshot(page, 'compose-restored');
    await checkA11y(page, 'the composer with a restored draft');

    await dialog.getByRole('button', { name: 'Schedule' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText(/^Scheduled on /).waitFor();
    expect(await storedDrafts()).toEqual({});
    const q = new URLSearchParams({ startDate: `${day}T00:00:00.000Z`, endDate: `${day}T23:59:59.999Z` });
    const posts = (await me.form.api('GET', `/public/v1/posts?${q.toString()}`)).json<{ posts: { content: string; state: string; publishDate: string }[] }>().posts;
    expect(posts.filter((p) => p.content.includes('Pricing FAQ'))).toMatchObject([{ state: 'QUEUE', content: `<p>${words}</p>`, publishDate: `${day}T15:45:00.000Z` }]);

    // nothing unsent any more: a reload asks nothing, and the composer opens empty
    await page.reload();
    expect(unloadQuestions).toEqual(['beforeunload']);
    await page.getByRole('button', { name: 'New post' }).click();
    expect(await dialog.getByLabel('Post text', { exact: true }).inputValue()).toBe('');
    expect(await dialog.getByText('Restored your unsaved draft').count()).toBe(0);
  });
});
