import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, startWebHarness, type SignedIn, type WebHarness, connectTelegramAndBluesky } from './harness.js';

const BERLIN = 'Europe/Berlin';

interface PostRow {
  id: string;
  state: string;
  publishDate: string;
  content: string;
  group: string;
  integration: { id: string };
  image: { alt?: string | null }[];
  settings: Record<string, unknown>;
}

describe('the composer in Chromium: one post for Telegram and Bluesky, counted, previewed, refused, uploaded, posted, drafted', () => {
  let h: WebHarness;
  let me: SignedIn;
  let telegram: { id: string; name: string };
  let bluesky: { id: string; name: string };
  let photo: string;

  async function postsAround(iso: string): Promise<PostRow[]> {
    const at = DateTime.fromISO(iso);
    const q = new URLSearchParams({ startDate: at.minus({ days: 2 }).toUTC().toISO()!, endDate: at.plus({ days: 2 }).toUTC().toISO()! });
    return (await me.form.api('GET', `/public/v1/posts?${q.toString()}`)).json<{ posts: PostRow[] }>().posts;
  }

  beforeAll(async () => {
    h = await startWebHarness();
    me = await h.signUp({ timezone: BERLIN, organization: 'Acme' });
    const channels = await connectTelegramAndBluesky(me);
    telegram = channels.telegram;
    bluesky = channels.bluesky;
    // a launch poster (an SVG drawn by sharp, with a little film grain so it weighs ~120 KB as a JPEG)
    photo = join(mkdtempSync(join(tmpdir(), 'compose-')), 'launch-poster.jpg');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="750">
      <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#1f3fb8"/><stop offset="0.55" stop-color="#7b3fd6"/><stop offset="1" stop-color="#ff7a59"/></linearGradient>
      <radialGradient id="r" cx="0.8" cy="0.2" r="0.6"><stop offset="0" stop-color="#fff" stop-opacity=".35"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>
      <rect width="1200" height="750" fill="url(#g)"/><rect width="1200" height="750" fill="url(#r)"/>
      <circle cx="980" cy="560" r="220" fill="#fff" fill-opacity=".08"/><circle cx="160" cy="140" r="120" fill="#fff" fill-opacity=".07"/>
      <text x="90" y="330" font-family="DejaVu Sans, sans-serif" font-weight="bold" font-size="120" fill="#fff">LAUNCH DAY</text>
      <text x="96" y="420" font-family="DejaVu Sans, sans-serif" font-size="48" fill="#fff" fill-opacity=".9">Café Lumière · doors open at noon</text>
      <text x="96" y="640" font-family="DejaVu Sans, sans-serif" font-size="30" fill="#fff" fill-opacity=".75">acme.example/launch</text></svg>`;
    const grain = await sharp({ create: { width: 1200, height: 750, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 30 } } })
      .png()
      .toBuffer();
    await sharp(Buffer.from(svg))
      .composite([{ input: await sharp(grain).ensureAlpha(0.06).toBuffer(), blend: 'soft-light' }])
      .jpeg({ quality: 88 })
      .toFile(photo);
  });
  afterAll(async () => h?.close());

  it('an over-long Bluesky text is refused with the field named and nothing sent; fixed, with an uploaded picture and a reply, Post now reaches both platforms and the calendar', async () => {
    const { page } = me;
    const posted: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/public/v1/posts') posted.push(r.postData() ?? '');
    });
    await page.goto('/calendar');
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.getByRole('button', { name: new RegExp(telegram.name) }).click();
    await dialog.getByRole('button', { name: new RegExp(bluesky.name) }).click();
    await expect.poll(() => dialog.getByRole('button', { name: new RegExp(bluesky.name) }).getAttribute('aria-pressed')).toBe('true');

    // the shared text, with one counter per channel in its own counting (the accents are combining
    // marks: two UTF-16 units for Telegram, one grapheme for Bluesky)
    const shared = 'Launch day at Cafe\u0301 Lumie\u0300re: doors open at noon https://acme.example/launch #launch';
    await dialog.getByLabel('Post text', { exact: true }).fill(shared);
    const tgCounter = dialog.locator(`.compose-counter[data-channel="${telegram.id}"] .compose-counter-value`).first();
    const skyCounter = dialog.locator(`.compose-counter[data-channel="${bluesky.id}"] .compose-counter-value`).first();
    await expect.poll(() => tgCounter.textContent()).toBe(`${shared.length} / 4096`);
    await expect.poll(() => skyCounter.textContent()).toBe(`${shared.length - 2} / 300`);

    // a picture uploaded with a progress bar (the upload throttled to 64 KB/s so the bar is seen)
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 64 * 1024 });
    await dialog.getByLabel('Upload media to post text').setInputFiles(photo);
    const progress = dialog.getByRole('progressbar', { name: 'Uploading launch-poster.jpg' });
    await progress.waitFor();
    const alt = dialog.getByLabel('Alt text for launch-poster.jpg');
    await alt.waitFor({ timeout: 30_000 });
    await progress.waitFor({ state: 'detached' });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await alt.fill('The launch poster');
    // a reply in the thread, right after the post
    await dialog.getByRole('button', { name: '+ Add thread item' }).click();
    await dialog.getByLabel('Thread item 1', { exact: true }).fill('Questions? Reply here and we answer live.');

    // Bluesky gets its own text, too long for its 300 graphemes
    await dialog.getByRole('tab', { name: new RegExp(bluesky.name) }).click();
    await dialog.getByRole('radio', { name: 'Its own text' }).check();
    const own = dialog.getByLabel(`Post text for ${bluesky.name}`, { exact: true });
    await own.fill('Cafe\u0301 '.repeat(61));
    const skyOwnCounter = dialog.locator(`.compose-counter[data-channel="${bluesky.id}"]`).filter({ visible: true }).first();
    await expect.poll(() => skyOwnCounter.getAttribute('class')).toContain('over');
    // 61 × "Café " is 305 graphemes (366 UTF-16 units), less the last space the server trims
    expect(await skyOwnCounter.locator('.compose-counter-value').textContent()).toBe('304 / 300');
    // red: the theme's colour for what is wrong
    // red: the theme's colour for what is wrong (the test's own code has no DOM types: a string runs in the page)
    const colour = (selector: string) => page.evaluate<string>(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).color`);
    const bad = await page.evaluate<string>(
      "(() => { const p = document.createElement('span'); p.style.color = 'var(--bad)'; document.body.append(p); const c = getComputedStyle(p).color; p.remove(); return c; })()",
    );
    expect(await colour(`.compose-tabpanel:not([hidden]) .compose-counter.over[data-channel="${bluesky.id}"]`)).toBe(bad);

    await dialog.getByRole('button', { name: 'Schedule' }).click();
    const refusal = dialog.getByRole('alert').filter({ hasText: 'Not sent' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain(`${bluesky.name} · text of the post: Bluesky allows 300 characters (graphemes); this text has 304`);
    expect(await own.getAttribute('aria-invalid')).toBe('true');
    expect(posted).toEqual([]);
    await screenshot(page, 'compose-refused');

    // fixed: the refusal goes
    await own.fill('Launch day at Café Lumière – doors open at noon. Come early, the first 50 get a poster! https://acme.example/launch');
    await refusal.waitFor({ state: 'detached' });
    await dialog.getByRole('tab', { name: 'All channels' }).click();
    // previews: one per channel, with its own text and the picture
    const skyPreview = dialog.getByRole('article', { name: `Preview on ${bluesky.name}` });
    expect(await skyPreview.textContent()).toContain('Come early');
    expect(await dialog.getByRole('article', { name: `Preview on ${telegram.name}` }).textContent()).toContain('Launch day at Cafe\u0301');
    await expect.poll(() => skyPreview.locator('.compose-pv-media img').count()).toBe(1);
    await screenshot(page, 'compose');

    await dialog.getByRole('button', { name: 'Post now' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText(`Publishing now on ${telegram.name} and ${bluesky.name}.`).waitFor();
    expect(posted).toHaveLength(1);

    // both platforms receive the post with its picture, then the reply under it
    await expect.poll(() => h.telegram.messages.length, { timeout: 30_000 }).toBe(2);
    const [tgPost, tgReply] = h.telegram.messages;
    expect(tgPost!.caption).toBe(shared);
    expect(tgPost!.media).toHaveLength(1);
    expect(tgReply!.text).toBe('Questions? Reply here and we answer live.');
    expect(tgReply!.replyTo).toBe(tgPost!.messageId);
    await expect.poll(() => h.sky.records.length, { timeout: 30_000 }).toBe(2);
    const [skyPost, skyReply] = h.sky.records;
    expect(skyPost!.text).toBe('Launch day at Café Lumière – doors open at noon. Come early, the first 50 get a poster! https://acme.example/launch');
    expect(skyPost!.media).toHaveLength(1);
    expect(JSON.stringify(skyPost!.embed)).toContain('The launch poster');
    expect(skyReply!.reply?.parent.uri).toBe(skyPost!.uri);

    // the calendar shows them, published
    const now = new Date().toISOString();
    await expect.poll(async () => (await postsAround(now)).filter((p) => p.state === 'PUBLISHED').length, { timeout: 30_000 }).toBe(2);
    await page.reload();
    // one event for the post's group, each channel published
    const events = page.locator('.post-event', { hasText: 'Launch day' });
    await expect.poll(() => events.count()).toBe(1);
    expect(await events.locator('.cal-event-state').allTextContents()).toEqual(['Published']);
    const channels = (await events.locator('.cal-channel .visually-hidden').allTextContents()).sort();
    expect(channels).toEqual([`${bluesky.name} (Bluesky): Published`, `${telegram.name} (Telegram): Published`].sort());
  });

  it('Save as draft at the channel’s next free slot, with a picture from the library: it appears in the calendar as a draft', async () => {
    const { page } = me;
    // at phone width the dialog stacks the editor over the previews
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/calendar');
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.getByRole('button', { name: new RegExp(telegram.name) }).click();
    await dialog.getByLabel('Post text', { exact: true }).fill('Pricing FAQ & answers (draft)');
    const slot = (await me.form.api('GET', `/public/v1/find-slot/${telegram.id}`)).json<{ date: string }>().date;
    await dialog.getByRole('button', { name: 'Next free slot' }).click();
    const wall = DateTime.fromISO(slot, { zone: BERLIN });
    await expect.poll(() => dialog.getByLabel('Time').inputValue()).toBe(wall.toFormat('HH:mm'));
    expect(await dialog.getByLabel('Date').inputValue()).toBe(wall.toISODate());
    await dialog.getByRole('status').filter({ hasText: 'Next free slot of' }).waitFor();

    // the picture uploaded in the first test, from the library
    await dialog.getByRole('button', { name: 'Media library' }).click();
    const library = page.getByRole('dialog', { name: 'Add from the media library' });
    await library.getByRole('button', { name: /launch-poster\.jpg/ }).click();
    await library.getByRole('button', { name: 'Add 1 to the post' }).click();
    await library.waitFor({ state: 'detached' });
    // alt text is per use: the library item has none of its own
    const alt = dialog.getByLabel('Alt text for launch-poster.jpg');
    expect(await alt.inputValue()).toBe('');
    await alt.fill('Launch poster: doors at noon');
    await screenshot(page, 'compose-phone');
    await page.setViewportSize({ width: 1360, height: 860 });

    await dialog.getByRole('button', { name: 'Save as draft' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText(`Saved as a draft for ${telegram.name}.`).waitFor();
    const draft = (await postsAround(slot)).find((p) => p.content.includes('Pricing FAQ'));
    expect(draft).toMatchObject({ state: 'DRAFT', publishDate: new Date(slot).toISOString(), content: '<p>Pricing FAQ &amp; answers (draft)</p>', image: [{ alt: 'Launch poster: doors at noon' }] });

    await page.goto(`/calendar?view=week&date=${wall.toISODate()}`);
    const event = page.locator('.post-event', { hasText: 'Pricing FAQ & answers (draft)' });
    await event.waitFor();
    expect(await event.locator('.cal-event-state').textContent()).toBe('Draft');
    expect(await event.locator('.cal-event-time').textContent()).toBe(wall.toFormat('HH:mm'));
  });

  it('a platform with settings: the form generated from its JSON Schema works under the app’s CSP (anyOf included), and the API’s refusal shows on the field', async () => {
    // Medium has no simulator here: its channel row is made directly (nothing is published)
    const journal = await h.t.deps.repositories.integrations.insertIntegration({
      organizationId: me.organizationId,
      identifier: 'medium',
      internalId: 'medium-1',
      name: 'Acme Journal',
      credentials: h.t.deps.secretBox.seal(JSON.stringify({ token: 'test' })),
    });
    const { page } = me;
    // the settings validator must not need eval (the CSP has no 'unsafe-eval'; Ajv would)
    const evalRefused: string[] = [];
    page.on('console', (m) => {
      if (/unsafe-eval|evaluate a string as JavaScript/i.test(m.text())) evalRefused.push(m.text());
    });
    page.on('pageerror', (e) => evalRefused.push(e.message));
    await page.goto('/calendar');
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.getByRole('button', { name: /Acme Journal/ }).click();
    await dialog.getByLabel('Post text', { exact: true }).fill('How we planned the launch, step by step.');

    await dialog.getByRole('tab', { name: /Acme Journal/ }).click();
    await dialog.getByLabel(/^Title/).fill('Launch day, behind the scenes');
    // `canonical` is an anyOf (a URL or a "(post:…)" placeholder): choosing its option validates data against each
    await dialog.locator('.compose-settings-form input[id*="canonical"]').first().fill('https://acme.example/blog/launch');
    await dialog.getByRole('button', { name: 'Schedule' }).click();
    // the API names posts.0.settings.subtitle: the message sits under that field, and in the tab
    const fieldError = dialog.locator('.compose-settings-form .error-detail', { hasText: 'Required' });
    await fieldError.waitFor();
    expect(await dialog.getByRole('alert').filter({ hasText: 'Not sent' }).textContent()).toContain('Acme Journal · setting “subtitle”: Required');
    expect(await dialog.getByRole('tab', { name: /Acme Journal/ }).textContent()).toContain('1 problem');
    expect(await dialog.getByLabel('Post text', { exact: true }).inputValue()).toBe('How we planned the launch, step by step.');
    await screenshot(page, 'compose-settings');

    await dialog.getByLabel(/^Subtitle/).fill('Six weeks, two channels, one poster');
    await fieldError.waitFor({ state: 'detached' });
    await dialog.getByRole('button', { name: 'Schedule' }).click();
    await dialog.waitFor({ state: 'detached' });
    const planned = (await postsAround(new Date(Date.now() + 60 * 60_000).toISOString())).find((p) => p.integration.id === journal.id);
    expect(planned).toMatchObject({
      state: 'QUEUE',
      settings: { title: 'Launch day, behind the scenes', subtitle: 'Six weeks, two channels, one poster', canonical: 'https://acme.example/blog/launch' },
    });
    expect(evalRefused).toEqual([]);
  });
});
