import { readFile } from 'node:fs/promises';
import { DateTime } from 'luxon';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectTelegramAndBluesky, screenshot, startWebHarness, type SignedIn, type WebHarness } from './harness.js';
import { MEASURE, TARGET, type Layout } from './layout.js';

const FIXTURES = new URL('../fixtures/media/', import.meta.url);
const PHONE = { width: 390, height: 844 };
const SMALL_PHONE = { width: 360, height: 780 };
const DESKTOP = { width: 1360, height: 860 };
// pages load lazily on a busy 2-core machine: polls wait up to 15 s instead of the default 1 s
vi.setConfig({ expect: { poll: { timeout: 15_000, interval: 100 } } });


describe('the app at phone width (issue 28): nothing scrolls sideways, every target is 44×44', () => {
  let h: WebHarness;
  let me: SignedIn;
  let page: Page;
  let postId: string;
  let webhookUrl: string;
  const zone = 'Europe/Berlin';
  const nextWeek = DateTime.now().setZone(zone).startOf('week').plus({ weeks: 1 });
  const at = (days: number, time: string) => DateTime.fromISO(`${nextWeek.plus({ days }).toISODate()}T${time}`, { zone }).toUTC().toISO()!;

  async function create(type: 'schedule' | 'draft' | 'now', date: string, content: string, integrations: string[]): Promise<string> {
    const res = await me.form.api('POST', '/public/v1/posts', {
      type,
      date,
      shortLink: false,
      tags: [],
      posts: integrations.map((id) => ({ integration: { id }, value: [{ content, image: [] }], settings: {} })),
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ postId: string }[]>()[0]!.postId;
  }

  /** No spinner is showing (a page's data has loaded). */
  const settled = () => expect.poll(() => page.locator('.spinner:visible').count()).toBe(0);

  /** Measures the page as it is now, saves its screenshot, and asserts both rules. */
  async function check(name: string): Promise<void> {
    // let lazy chunks, fonts and FullCalendar's own layout pass settle (no timing: the next frame)
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    const { width } = page.viewportSize()!;
    await screenshot(page, `phone-${name}-${width}`);
    const m = await page.evaluate<Layout>(MEASURE);
    expect(m.scrollWidth, `${name} at ${width}px scrolls sideways; past the edge: ${m.wide.join('; ')}`).toBeLessThanOrEqual(m.clientWidth);
    expect(m.bodyScrollWidth, `${name} at ${width}px: the body scrolls sideways; past the edge: ${m.wide.join('; ')}`).toBeLessThanOrEqual(m.bodyClientWidth);
    expect(m.small, `${name} at ${width}px: targets under ${TARGET}×${TARGET}:\n${m.small.join('\n')}\n`).toEqual([]);
  }

  async function calendar(view: 'Week' | 'Day' | 'Month' | 'List') {
    await page.goto('/calendar');
    await page.locator('.fc').waitFor();
    await page.getByRole('button', { name: view, exact: true }).click();
    if (view !== 'Day') {
      await page.getByRole('button', { name: /^Next/ }).click();
      await page.locator('.post-event').first().waitFor();
    }
  }

  beforeAll(async () => {
    h = await startWebHarness({ env: { ALLOW_PRIVATE_TARGETS: 'true' } });
    webhookUrl = `${h.origin}/hooks/none`;
    me = await h.signUp({ name: 'Pat', organization: 'Acme', timezone: zone });
    page = me.page;
    await page.setViewportSize(PHONE);
    const { telegram, bluesky } = await connectTelegramAndBluesky(me);
    postId = await create('now', '', '<p>We are live on Telegram</p>', [telegram.id]);
    await create('schedule', at(0, '09:00'), '<p>Monday kick-off: what ships this week and why it matters</p>', [telegram.id, bluesky.id]);
    await create('schedule', at(1, '10:00'), '<p>Spring launch: <strong>doors open</strong> at noon</p>', [telegram.id]);
    await create('draft', at(2, '15:30'), '<p>Pricing FAQ &amp; answers</p>', [bluesky.id]);
    await create('schedule', at(3, '12:30'), '<p>Lunchtime demo in the channel</p>', [telegram.id]);
    await create('draft', at(4, '17:00'), '<p>Weekend reading list (draft)</p>', [bluesky.id]);
    // settings with content: an API key, an invitation, a webhook
    expect((await me.form.api('POST', '/public/v1/api-keys', { name: 'Continuous integration pipeline' })).statusCode).toBe(201);
    expect((await me.form.api('POST', '/public/v1/invitations', { role: 'member', email: 'someone.with.a.long.address@example.test' })).statusCode).toBe(201);
    const hook = await me.form.api('POST', '/public/v1/webhooks', { name: 'CRM sync', url: webhookUrl, events: [], integrations: [], enabled: true });
    expect(hook.statusCode, hook.body).toBe(201);
    for (let i = 0; i < 200; i++) {
      if ((await me.form.api('GET', `/public/v1/posts/${postId}`)).json<{ state: string }>().state === 'PUBLISHED') break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => h?.close());

  for (const view of ['Week', 'Day', 'Month', 'List'] as const) {
    it(`the calendar, ${view.toLowerCase()} view`, async () => {
      await calendar(view);
      await check(`calendar-${view.toLowerCase()}`);
    });
  }

  it('week and month events show their time and the start of their text, not a cut-off hour', async () => {
    for (const view of ['Week', 'Month'] as const) {
      await calendar(view);
      await page.locator('.post-event').filter({ hasText: 'Spring launch' }).first().waitFor();
      // the time in full (10:00, not "10"), and some of the text is visible inside the event's box
      const shown = await page.evaluate(`(() => {
        const el = [...document.querySelectorAll('.fc-event')].find((e) => e.textContent.includes('Spring launch'));
        const box = el.getBoundingClientRect();
        const seen = (sel) => { const n = el.querySelector(sel); if (!n) return 0; const r = n.getBoundingClientRect(); return Math.max(0, Math.min(r.right, box.right) - Math.max(r.left, box.left)) * Math.max(0, Math.min(r.bottom, box.bottom) - Math.max(r.top, box.top)); };
        const time = el.querySelector('.cal-event-time');
        return { time: time ? time.textContent : '', timeFits: time ? time.scrollWidth <= time.clientWidth + 1 && time.getBoundingClientRect().right <= box.right + 1 : false, text: seen('.cal-event-text') };
      })()`);
      const { time, timeFits, text } = shown as { time: string; timeFits: boolean; text: number };
      expect(time, view).toMatch(/^\d{2}:\d{2}/);
      expect(timeFits, `${view}: the time ${time} is cut`).toBe(true);
      expect(text, `${view}: none of the post's text is visible`).toBeGreaterThan(0);
    }
  });

  it('the calendar at 360 px, week and list views', async () => {
    await page.setViewportSize(SMALL_PHONE);
    try {
      await calendar('Week');
      await check('calendar-week');
      await calendar('List');
      await check('calendar-list');
    } finally {
      await page.setViewportSize(PHONE);
    }
  });

  it('the menu, open', async () => {
    await page.goto('/channels');
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Calendar' }).waitFor();
    await check('menu');
  });

  it('the composer, open', async () => {
    await page.goto('/calendar');
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: /Acme News/ }).click();
    await dialog.getByLabel('Post text', { exact: true }).fill('Launch day: doors open at noon https://acme.example/launch #launch');
    await check('compose');
  });

  it('a post’s page', async () => {
    await page.goto(`/posts/${postId}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await check('post');
  });

  it('the channels page', async () => {
    await page.goto('/channels');
    await page.locator('li.ch-row').first().waitFor();
    await check('channels');
  });

  it('the media library, with files', async () => {
    await page.goto('/library');
    const names = ['photo-64x48.jpg', 'photo-48x64.png'];
    await page.getByLabel('Choose files to upload').setInputFiles(
      await Promise.all(names.map(async (name) => ({ name, mimeType: name.endsWith('png') ? 'image/png' : 'image/jpeg', buffer: await readFile(new URL(name, FIXTURES)) }))),
    );
    await expect.poll(() => page.getByRole('list', { name: 'Media files' }).getByRole('listitem').count()).toBe(2);
    await check('media');
  });

  it('the video page', async () => {
    await page.goto('/video');
    await page.getByRole('heading', { level: 1 }).waitFor();
    await check('video');
  });

  it('the analytics page', async () => {
    await page.goto('/analytics');
    await page.getByRole('heading', { level: 1 }).waitFor();
    await settled();
    await check('analytics');
  });

  it('the notifications page', async () => {
    await page.goto('/notifications');
    await page.getByRole('heading', { level: 1 }).waitFor();
    await settled();
    await check('notifications');
  });

  for (const [tab, label, ready] of [
    ['profile', 'Profile', 'Search time zones'],
    ['members', 'Members', 'someone.with.a.long.address@example.test'],
    ['api-keys', 'API keys', 'Continuous integration pipeline'],
    ['apps', 'Approved apps', null],
    ['webhooks', 'Webhooks', 'CRM sync'],
    ['short-links', 'Short links', 'UTM template'],
    ['writing-help', 'Writing help', 'Base URL'],
  ] as const) {
    it(`settings: ${label}`, async () => {
      await page.goto(`/settings/${tab}`);
      await page.getByRole('navigation', { name: 'Settings sections' }).waitFor();
      if (ready) await page.getByText(ready).first().waitFor();
      await settled();
      await check(`settings-${tab}`);
    });
  }

  it('settings at 360 px: members and webhooks', async () => {
    await page.setViewportSize(SMALL_PHONE);
    try {
      await page.goto('/settings/members');
      await page.getByText('someone.with.a.long.address@example.test').first().waitFor();
      await check('settings-members');
      await page.goto('/settings/webhooks');
      await page.getByText('CRM sync').first().waitFor();
      await check('settings-webhooks');
    } finally {
      await page.setViewportSize(PHONE);
    }
  });

  it('desktop screenshots of the same pages (for the eye: the phone rules change nothing there)', async () => {
    await page.setViewportSize(DESKTOP);
    try {
      for (const view of ['Week', 'Month', 'List'] as const) {
        await calendar(view);
        await screenshot(page, `phone-desktop-calendar-${view.toLowerCase()}`);
      }
      for (const path of ['/channels', '/library', '/video', '/analytics', '/notifications', `/posts/${postId}`, '/settings/profile', '/settings/members', '/settings/api-keys', '/settings/webhooks']) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1 }).waitFor();
        await settled();
        await screenshot(page, `phone-desktop${path.replace(/\//g, '-').replace(/-[0-9a-f-]{20,}$/, '')}`);
        // the desktop never scrolls sideways either
        const m = await page.evaluate<Layout>(MEASURE);
        expect(m.scrollWidth, `${path} at desktop width: ${m.wide.join('; ')}`).toBeLessThanOrEqual(m.clientWidth);
      }
    } finally {
      await page.setViewportSize(PHONE);
    }
  });
});
