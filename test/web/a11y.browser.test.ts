import { DateTime } from 'luxon';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkA11y } from './axe.js';
import { screenshot, startWebHarness, type SignedIn, type WebHarness, connectTelegramAndBluesky } from './harness.js';

const BERLIN = 'Europe/Berlin';

/**
 * Accessibility of the app (issue 25): axe-core finds no serious or critical violation on the
 * pages a person uses every day, in the states they see them in (a week full of posts, the
 * composer open, the connect picker open…), at desktop and phone width; every page has its own
 * document title; a skip link leads past the navigation; the notification bell is in a landmark.
 */
describe('accessibility of the app in Chromium (axe-core)', () => {
  let h: WebHarness;
  let me: SignedIn;
  let page: Page;
  let telegram: string;
  let bluesky: string;
  let published: string;
  const nextWeek = DateTime.now().setZone(BERLIN).startOf('week').plus({ weeks: 1 });
  const at = (days: number, time: string) => DateTime.fromISO(`${nextWeek.plus({ days }).toISODate()}T${time}`, { zone: BERLIN }).toUTC().toISO()!;

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

  /** The calendar, settled on next week (where the planned posts are) in the view asked for. */
  async function calendar(view: 'Week' | 'Month') {
    await page.goto('/calendar');
    await page.locator('.fc').waitFor();
    await page.getByRole('button', { name: view, exact: true }).click();
    await page.getByRole('button', { name: /^Next/ }).click();
    await page.locator('.fc-event').first().waitFor();
  }

  beforeAll(async () => {
    h = await startWebHarness();
    me = await h.signUp({ timezone: BERLIN, organization: 'Acme' });
    page = me.page;
    const channels = await connectTelegramAndBluesky(me);
    telegram = channels.telegram.id;
    bluesky = channels.bluesky.id;
    // a week that reads like a real one: every state, one post to both channels
    published = await create('now', '', '<p>We are live on Telegram</p>', [telegram]);
    await create('schedule', at(0, '09:00'), '<p>Monday kick-off: what ships this week</p>', [telegram, bluesky]);
    await create('schedule', at(1, '10:00'), '<p>Spring launch: <strong>doors open</strong> at noon</p>', [telegram]);
    await create('draft', at(2, '15:30'), '<p>Pricing FAQ &amp; answers</p>', [bluesky]);
    await create('schedule', at(3, '12:30'), '<p>Lunchtime demo in the channel</p>', [telegram]);
    await create('draft', at(4, '17:00'), '<p>Weekend reading list (draft)</p>', [bluesky]);
    for (let i = 0; i < 200; i++) {
      if ((await me.form.api('GET', `/public/v1/posts/${published}`)).json<{ state: string }>().state === 'PUBLISHED') break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => h?.close());

  it('the calendar’s week view has no serious or critical violation', async () => {
    await calendar('Week');
    await screenshot(page, 'a11y-calendar-week');
    await checkA11y(page, 'the calendar, week view');
    // an empty week: the grid scrolls with nothing focusable in it, so the scroller itself must be
    await page.getByRole('button', { name: /^Next/ }).click();
    await page.getByRole('button', { name: /^Next/ }).click();
    // (no posts: the week still shows the channels' open posting times)
    await page.locator('.post-event').first().waitFor({ state: 'detached' });
    await checkA11y(page, 'the calendar, week view of an empty week');
    // the hours scroll, and the keyboard reaches them: a named region that takes the focus
    const hours = page.getByRole('region', { name: 'Calendar, scrollable' });
    await hours.focus();
    const scrollTop = () => page.evaluate<number>(`document.querySelector('[aria-label="Calendar, scrollable"]').scrollTop`);
    // (the grid opens at now, which late in the day is its end: start from its top)
    await page.evaluate(`document.querySelector('[aria-label="Calendar, scrollable"]').scrollTop = 0`);
    const before = await scrollTop();
    await page.keyboard.press('PageDown');
    await expect.poll(scrollTop).toBeGreaterThan(before);
  });

  it('the calendar’s month view has no serious or critical violation', async () => {
    await calendar('Month');
    await screenshot(page, 'a11y-calendar-month');
    await checkA11y(page, 'the calendar, month view');
  });

  it('in the dark colour scheme the calendar has no serious or critical violation', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await calendar('Week');
      await screenshot(page, 'a11y-calendar-week-dark');
      await checkA11y(page, 'the calendar, week view, dark colour scheme');
      await page.goto('/channels');
      await page.locator('li.ch-row').first().waitFor();
      await screenshot(page, 'a11y-channels-dark');
      await checkA11y(page, 'the channels page, dark colour scheme');
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it('the composer, open over the calendar with two channels chosen and text written, has no serious or critical violation', async () => {
    await page.goto('/calendar');
    await page.getByRole('button', { name: 'New post' }).click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.waitFor();
    await checkA11y(page, 'the composer dialog, just opened');
    await dialog.getByRole('button', { name: /Acme News/ }).click();
    await dialog.getByRole('button', { name: /Acme on Bluesky/ }).click();
    await dialog.getByLabel('Post text', { exact: true }).fill('Launch day: doors open at noon https://acme.example/launch #launch');
    await screenshot(page, 'a11y-composer');
    await checkA11y(page, 'the composer dialog with two channels and text');
  });

  it('the channels page, with channels connected and the connect picker open, has no serious or critical violation', async () => {
    await page.goto('/channels');
    await page.locator('li.ch-row').first().waitFor();
    await checkA11y(page, 'the channels page');
    await page.getByRole('button', { name: 'Connect a channel' }).first().click();
    await page.getByRole('dialog').waitFor();
    await screenshot(page, 'a11y-channels-connect');
    await checkA11y(page, 'the channels page with the connect picker open');
  });

  it('a post’s detail page has no serious or critical violation', async () => {
    await page.goto(`/posts/${published}`);
    await page.getByRole('heading', { level: 1, name: 'Post on Acme News' }).waitFor();
    await checkA11y(page, 'the post detail page');
  });

  it('every settings page has no serious or critical violation', async () => {
    for (const [path, heading] of [
      ['profile', 'Save profile'],
      ['members', 'Create invitation'],
      ['api-keys', 'Create key'],
      ['apps', null],
      ['webhooks', null],
      ['short-links', 'Save short links'],
      ['writing-help', 'Turn on writing help'],
    ] as const) {
      await page.goto(`/settings/${path}`);
      await page.locator('.settings-body').waitFor();
      if (heading) await page.getByRole('button', { name: heading }).first().waitFor();
      await page.waitForLoadState('networkidle');
      await checkA11y(page, `the settings page /settings/${path}`);
    }
  });

  it('every page has its own document title', async () => {
    const titles: [string, string][] = [
      ['/calendar', 'Calendar · Tidings'],
      ['/channels', 'Channels · Tidings'],
      [`/posts/${published}`, 'Post on Acme News · Tidings'],
      ['/library', 'Media library · Tidings'],
      ['/video', 'Video · Tidings'],
      ['/analytics', 'Analytics · Tidings'],
      ['/notifications', 'Notifications · Tidings'],
      ['/settings/profile', 'Profile · Settings · Tidings'],
      ['/settings/api-keys', 'API keys · Settings · Tidings'],
      ['/settings/webhooks', 'Webhooks · Settings · Tidings'],
      ['/no-such-page', 'Page not found · Tidings'],
    ];
    const seen: [string, string][] = [];
    for (const [path, title] of titles) {
      await page.goto(path);
      // the title is set once the page has rendered (string predicates would be eval, which the CSP forbids)
      for (let tries = 0; tries < 100 && (await page.title()) !== title; tries++) await new Promise((r) => setTimeout(r, 100));
      seen.push([path, await page.title()]);
    }
    expect(seen).toEqual(titles);
    // moving inside the app (no reload) renames the tab too
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Channels' }).click();
    await expect.poll(() => page.title()).toBe('Channels · Tidings');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await expect.poll(() => page.title()).toBe('Profile · Settings · Tidings');
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Members' }).click();
    await expect.poll(() => page.title()).toBe('Members · Settings · Tidings');
  });

  it('the first Tab reaches “Skip to main content”, shown on focus, which moves the focus to the page past the navigation', async () => {
    await page.goto('/channels');
    await page.locator('li.ch-row').first().waitFor();
    const skip = page.getByRole('link', { name: 'Skip to main content' });
    // off screen until focused
    expect((await skip.boundingBox())!.y + (await skip.boundingBox())!.height).toBeLessThanOrEqual(0);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to main content');
    const box = (await skip.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.height).toBeGreaterThan(10);
    await screenshot(page, 'a11y-skip-link');
    await page.keyboard.press('Enter');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('main');
    // the next Tab lands inside the page, not in the navigation
    await page.keyboard.press('Tab');
    expect(await page.evaluate<boolean>("Boolean(document.activeElement.closest('main'))")).toBe(true);
    expect(new URL(page.url()).pathname).toBe('/channels');
  });

  it('the notification bell is inside the banner landmark', async () => {
    await page.goto('/calendar');
    const bell = page.getByRole('banner').getByRole('link', { name: /notification/i });
    await bell.waitFor();
    expect(await bell.count()).toBe(1);
    // and nothing on the page sits outside a landmark (axe's region rule, a moderate one)
    const rest = await checkA11y(page, 'the calendar');
    expect(rest.filter((v) => v.id === 'region').flatMap((v) => v.nodes.map((n) => n.target.join(' ')))).toEqual([]);
  });

  it('the service’s own account pages are titled after themselves and have no serious or critical violation', async () => {
    const pages: [string, string][] = [
      ['/account', 'Your account · Tidings'],
      ['/account/organization', 'Acme · Organisation · Tidings'],
      ['/account/api-keys', 'API keys · Tidings'],
      ['/account/apps', 'Apps · Tidings'],
      ['/account/approved-apps', 'Approved apps · Tidings'],
    ];
    const seen: [string, string][] = [];
    for (const [path] of pages) {
      await page.goto(path);
      seen.push([path, await page.title()]);
      await checkA11y(page, `the account page ${path}`);
    }
    expect(seen).toEqual(pages);
    // a skip link first there too
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to main content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('main');
    // in the dark scheme too
    await page.goto('/account/api-keys');
    await page.emulateMedia({ colorScheme: 'dark' });
    await checkA11y(page, 'the API keys account page, dark colour scheme');
    await page.emulateMedia({ colorScheme: 'light' });
    // and signed out
    const visitor = await h.chromium.newPage({ baseURL: h.origin });
    try {
      await visitor.goto('/account/login');
      expect(await visitor.title()).toBe('Sign in to Tidings · Tidings');
      await checkA11y(visitor, 'the sign-in page');
      await visitor.goto('/account/signup');
      expect(await visitor.title()).toBe('Create your account · Tidings');
      await checkA11y(visitor, 'the sign-up page');
    } finally {
      await visitor.close();
    }
  });

  it('at phone width (390×844) the calendar has no serious or critical violation', async () => {
    const phone = await me.context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    try {
      await phone.goto('/calendar');
      await phone.locator('.fc-event').first().waitFor();
      await screenshot(phone, 'a11y-calendar-phone');
      await checkA11y(phone, 'the calendar at phone width');
      await phone.getByRole('button', { name: 'Week', exact: true }).click();
      await phone.locator('.fc-timegrid').waitFor();
      await screenshot(phone, 'a11y-calendar-phone-week');
      await checkA11y(phone, 'the calendar’s week view at phone width');
      await phone.getByRole('button', { name: 'Menu' }).click();
      await screenshot(phone, 'a11y-calendar-phone-menu');
      await checkA11y(phone, 'the calendar at phone width with the menu open');
    } finally {
      await phone.close();
    }
  });
});
