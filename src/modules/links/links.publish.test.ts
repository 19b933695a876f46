import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseDueJobs, waitFor } from '../../../test/factories.js';
import { call, expectError } from '../../../test/helpers.js';
import { startTelegramApp, type TelegramApp } from '../../../test/telegram-app.js';

interface Link {
  id: string;
  postId: string;
  provider: string;
  shortUrl: string;
  originalUrl: string;
  targetUrl: string;
  clicks: number;
  botClicks: number;
}

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

/**
 * Short links end to end (issue 32) against the real publisher and the Telegram simulator: a post
 * with `shortLink: true` is published with built-in short links carrying the organisation's UTM
 * parameters; each redirects (302) to its target; a person's click counts once and a crawler's
 * fetch apart; the count shows in the post's links and in its analytics. Lengths are checked
 * after shortening.
 */
describe('short links (issue 32)', () => {
  let app: TelegramApp;
  beforeAll(async () => {
    app = await startTelegramApp();
  });
  afterAll(async () => app?.close());

  const at = (minutes: number) => new Date(app.clock.now() + minutes * 60_000).toISOString();
  const key = (method: 'GET' | 'POST' | 'PUT' | 'HEAD', url: string, payload?: unknown, headers?: Record<string, string>) =>
    call(app.t.app, app.org.apiKey, { method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  const body = (content: string, date: string, shortLink = true) => ({
    type: 'schedule',
    date,
    shortLink,
    tags: [],
    posts: [{ integration: { id: app.channel }, value: [{ content, image: [] }] }],
  });
  const visit = (url: string, method: 'GET' | 'HEAD', userAgent: string) => app.t.app.inject({ method, url: new URL(url).pathname, headers: { 'user-agent': userAgent } });

  it('publishes two URLs as short links with UTM parameters that redirect, and counts clicks apart from crawlers', async () => {
    const utm = await key('PUT', '/public/v1/short-links/settings', { provider: 'builtin', utmTemplate: 'utm_source={platform}&utm_medium=social&utm_campaign={group}' });
    expect(utm.statusCode, utm.body).toBe(200);
    expect(utm.json()).toMatchObject({ provider: 'builtin', utmTemplate: 'utm_source={platform}&utm_medium=social&utm_campaign={group}', hasApiKey: false, builtinBaseUrl: 'http://localhost:3000/s/' });

    const content = '<p>Read https://example.com/guide?lang=en&amp;page=2 and (https://example.org/launch).</p><p>Again: https://example.com/guide?lang=en&amp;page=2</p>';
    const made = await key('POST', '/public/v1/posts', body(content, at(10)));
    expect(made.statusCode, made.body).toBe(201);
    const { postId, group } = made.json<{ postId: string; group: string }[]>()[0]!;
    // shortened when published, not when saved
    expect((await key('GET', `/public/v1/posts/${postId}/links`)).json<{ links: Link[] }>().links).toEqual([]);

    app.clock.advance(11 * 60_000);
    await releaseDueJobs(app.t, app.clock);
    await waitFor(async () => (await key('GET', `/public/v1/posts/${postId}`)).json<{ state: string }>().state === 'PUBLISHED', 15_000, 'the post published');

    const links = (await key('GET', `/public/v1/posts/${postId}/links`)).json<{ links: Link[] }>().links;
    expect(links.map((l) => l.originalUrl)).toEqual(['https://example.com/guide?lang=en&page=2', 'https://example.org/launch']);
    for (const l of links) {
      expect(l).toMatchObject({ postId, provider: 'builtin', clicks: 0, botClicks: 0 });
      expect(l.shortUrl).toMatch(/^http:\/\/localhost:3000\/s\/[A-Za-z0-9]{7}$/);
    }
    expect(links[0]!.targetUrl).toBe(`https://example.com/guide?lang=en&page=2&utm_source=telegram&utm_medium=social&utm_campaign=${group}`);
    expect(links[1]!.targetUrl).toBe(`https://example.org/launch?utm_source=telegram&utm_medium=social&utm_campaign=${group}`);

    // what the platform received: the short links (the same URL twice: one link), never the originals
    const sent = app.sends().map((r) => (r.body as { text: string }).text);
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toContain('example.com');
    expect(sent[0]).not.toContain('example.org');
    expect(sent[0]!.split(links[0]!.shortUrl)).toHaveLength(3);
    expect(sent[0]).toContain(`(${links[1]!.shortUrl}).`);

    // a person's click: one 302 to the target, counted once; a crawler's and a HEAD apart
    const click = await visit(links[0]!.shortUrl, 'GET', BROWSER);
    expect(click.statusCode).toBe(302);
    expect(click.headers.location).toBe(links[0]!.targetUrl);
    expect(click.headers['cache-control']).toBe('private, no-store');
    expect((await visit(links[0]!.shortUrl, 'GET', 'Twitterbot/1.0')).headers.location).toBe(links[0]!.targetUrl);
    expect((await visit(links[0]!.shortUrl, 'HEAD', BROWSER)).statusCode).toBe(302);
    expect((await visit(links[1]!.shortUrl, 'GET', 'facebookexternalhit/1.1')).statusCode).toBe(302);
    const unknown = await app.t.app.inject({ method: 'GET', url: '/s/zzzzzzz', headers: { 'user-agent': BROWSER } });
    expect(unknown.statusCode).toBe(404);

    const counted = (await key('GET', `/public/v1/posts/${postId}/links`)).json<{ links: Link[] }>().links;
    expect(counted.map((l) => [l.clicks, l.botClicks])).toEqual([
      [1, 2],
      [0, 1],
    ]);

    // another organisation sees neither the links nor the figures
    const other = await app.t.createOrg('Other');
    expectError(await call(app.t.app, other.apiKey, { method: 'GET', url: `/public/v1/posts/${postId}/links` }), 404, 'NOT_FOUND');

    // the post's analytics carry the clicks (Telegram has no post figures of its own)
    const analytics = await key('GET', `/public/v1/analytics/post/${postId}?date=7`);
    expect(analytics.statusCode, analytics.body).toBe(200);
    const today = new Date(app.clock.now()).toISOString().slice(0, 10);
    expect(analytics.json()).toEqual([{ label: 'Link clicks', percentageChange: 0, data: [{ total: 1, date: today }] }]);
  });

  it('counts the text with its links shortened: a text too long as written fits, one too long even shortened is refused', async () => {
    const long = 'https://example.com/' + 'a'.repeat(300);
    const filler = 'x'.repeat(3900);
    // as written: 3,900 + 1 + 320 characters, over Telegram's 4,096; shortened: about 3,935
    expectError(await key('POST', '/public/v1/posts', body(`<p>${filler} ${long}</p>`, at(10), false)), 400, 'VALIDATION_FAILED');
    const fits = await key('POST', '/public/v1/posts', body(`<p>${filler} ${long}</p>`, at(10)));
    expect(fits.statusCode, fits.body).toBe(201);
    const { postId } = fits.json<{ postId: string }[]>()[0]!;

    const tooLong = await key('POST', '/public/v1/posts', body(`<p>${'y'.repeat(4090)} ${long}</p>`, at(10)));
    expectError(tooLong, 400, 'VALIDATION_FAILED');
    expect(tooLong.json<{ fields: { path: string; message: string }[] }>().fields).toEqual([
      { path: 'posts.0.value.0.content', message: expect.stringMatching(/^Telegram allows 4096 .*; this text has 4122 with its links shortened$/) },
    ]);

    const before = app.sends().length;
    app.clock.advance(11 * 60_000);
    await releaseDueJobs(app.t, app.clock);
    await waitFor(async () => (await key('GET', `/public/v1/posts/${postId}`)).json<{ state: string }>().state === 'PUBLISHED', 15_000, 'the long post published');
    const text = (app.sends()[before]!.body as { text: string }).text;
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text).toMatch(/x{3900} http:\/\/localhost:3000\/s\/[A-Za-z0-9]{7}$/);
  });
});
