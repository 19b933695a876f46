import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseDueJobs, waitFor } from '../../../test/factories.js';
import { call, expectError } from '../../../test/helpers.js';
import { startTelegramApp, type TelegramApp } from '../../../test/telegram-app.js';
import { dubKit } from './providers/dub/dub.testkit.js';
import { kuttKit } from './providers/kutt/kutt.testkit.js';
import type { ShortenerKit, ShortenerKitRun } from './providers/shortener.contract.js';
import { shortioKit } from './providers/shortio/shortio.testkit.js';

interface Link {
  provider: string;
  shortUrl: string;
  originalUrl: string;
  targetUrl: string;
  clicks: number;
}

const KITS: [string, ShortenerKit][] = [
  ['dub', dubKit],
  ['shortio', shortioKit],
  ['kutt', kuttKit],
];

/**
 * Each outside shortener through the HTTP API and the real publisher (issue 32): its settings are
 * checked with the provider (a refused key is a 422 naming `apiKey`), its key stored sealed; a post
 * is published with the provider's short links carrying the UTM parameters; a click on the
 * provider's side shows in the post's links and analytics. A provider that fails at publish time is
 * asked again later; one that refuses the key fails the post with its words.
 */
describe('outside shorteners end to end (issue 32)', () => {
  let app: TelegramApp;
  const runs = new Map<string, ShortenerKitRun>();
  beforeAll(async () => {
    for (const [id, kit] of KITS) runs.set(id, await kit.start());
    const origins = new Map([...runs.values()].flatMap((r) => [...r.origins]));
    app = await startTelegramApp({ origins });
  });
  afterAll(async () => {
    await app?.close();
    for (const r of runs.values()) await r.sim.close();
  });

  const at = (minutes: number) => new Date(app.clock.now() + minutes * 60_000).toISOString();
  const key = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => call(app.t.app, app.org.apiKey, { method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
  const post = (content: string, date: string) => ({ type: 'schedule', date, shortLink: true, tags: [], posts: [{ integration: { id: app.channel }, value: [{ content, image: [] }] }] });
  const state = async (id: string) => (await key('GET', `/public/v1/posts/${id}`)).json<{ state: string; error: string | null }>();

  for (const [id, kit] of KITS) {
    it(`${kit.shortener.displayName}: settings checked with it, links made on publish, clicks read back`, async () => {
      const run = runs.get(id)!;
      const { settings, wrongKey } = run;
      const refused = await key('PUT', '/public/v1/short-links/settings', { provider: id, apiKey: wrongKey.apiKey, domain: wrongKey.domain, apiUrl: wrongKey.apiUrl });
      expectError(refused, 422, 'SHORTENER_REJECTED');
      expect(refused.json<{ fields: { path: string }[] }>().fields[0]!.path).toBe('apiKey');

      const saved = await key('PUT', '/public/v1/short-links/settings', { provider: id, apiKey: settings.apiKey, domain: settings.domain, apiUrl: settings.apiUrl, utmTemplate: 'utm_source={platform}&utm_campaign=launch' });
      expect(saved.statusCode, saved.body).toBe(200);
      expect(saved.json()).toMatchObject({ provider: id, hasApiKey: true });
      expect(saved.body).not.toContain(settings.apiKey);
      const { rows } = await app.t.deps.database.sql.executeSql('SELECT api_key_sealed FROM short_link_settings WHERE organization_id = $1', [app.org.id]);
      const sealed = (rows[0] as { api_key_sealed: string }).api_key_sealed;
      expect(sealed).toMatch(/^v1\./);
      expect(sealed).not.toContain(settings.apiKey);

      const made = await key('POST', '/public/v1/posts', post(`<p>New: https://example.com/${id}/launch</p>`, at(5)));
      expect(made.statusCode, made.body).toBe(201);
      const { postId } = made.json<{ postId: string }[]>()[0]!;
      const before = app.sends().length;
      app.clock.advance(6 * 60_000);
      await releaseDueJobs(app.t, app.clock);
      await waitFor(async () => (await state(postId)).state === 'PUBLISHED', 15_000, 'the post published');

      const [link] = (await key('GET', `/public/v1/posts/${postId}/links`)).json<{ links: Link[] }>().links;
      expect(link).toMatchObject({ provider: id, originalUrl: `https://example.com/${id}/launch`, targetUrl: `https://example.com/${id}/launch?utm_source=telegram&utm_campaign=launch`, clicks: 0 });
      expect(new URL(link!.shortUrl).host).toBe(run.shortHost);
      expect(run.sim.links.map((l) => l.target)).toContain(link!.targetUrl);
      const text = (app.sends()[before]!.body as { text: string }).text;
      expect(text).toContain(link!.shortUrl);
      expect(text).not.toContain(link!.originalUrl);

      const followed = await run.sim.visit(link!.shortUrl);
      expect([301, 302]).toContain(followed.status);
      expect(followed.location).toBe(link!.targetUrl);
      await run.sim.visit(link!.shortUrl, 'Twitterbot/1.0');
      // the figures read a few minutes ago are kept that long; then read again from the provider
      app.clock.advance(6 * 60_000);
      const counted = (await key('GET', `/public/v1/posts/${postId}/links`)).json<{ links: Link[] }>().links;
      expect(counted[0]!.clicks).toBe(1);
      const analytics = (await key('GET', `/public/v1/analytics/post/${postId}?date=7`)).json<{ label: string; data: { total: number }[] }[]>();
      expect(analytics.find((s) => s.label === 'Link clicks')?.data.reduce((n, d) => n + d.total, 0)).toBe(1);
    });
  }

  it('a provider that fails at publish time is asked again; one that refuses the key fails the post with its words', async () => {
    const run = runs.get('dub')!;
    const saved = await key('PUT', '/public/v1/short-links/settings', { provider: 'dub', apiKey: run.settings.apiKey, domain: run.settings.domain, utmTemplate: null });
    expect(saved.statusCode, saved.body).toBe(200);

    const made = await key('POST', '/public/v1/posts', post('<p>Soon: https://example.com/retry</p>', at(5)));
    const { postId } = made.json<{ postId: string }[]>()[0]!;
    const sent = app.sends().length;
    run.sim.injectKind('server_error', /\/links/);
    app.clock.advance(6 * 60_000);
    await releaseDueJobs(app.t, app.clock);
    await waitFor(async () => run.sim.log.some((r) => r.method === 'POST' && /\/links/.test(r.path)), 15_000, 'the provider asked');
    await new Promise((r) => setTimeout(r, 300));
    expect(await state(postId)).toMatchObject({ state: 'QUEUE' });
    expect(app.sends().length).toBe(sent);
    // a minute later it is asked again, answers, and the post goes out with its link
    app.clock.advance(61_000);
    await releaseDueJobs(app.t, app.clock);
    await waitFor(async () => (await state(postId)).state === 'PUBLISHED', 15_000, 'the post published after the retry');
    expect((await key('GET', `/public/v1/posts/${postId}/links`)).json<{ links: Link[] }>().links).toHaveLength(1);

    const refusedPost = await key('POST', '/public/v1/posts', post('<p>Later: https://example.com/refused</p>', at(5)));
    const refusedId = refusedPost.json<{ postId: string }[]>()[0]!.postId;
    run.sim.inject({ path: /\/links/, status: 401, body: { error: { code: 'unauthorized', message: 'Unauthorized: Invalid API key.', doc_url: 'https://dub.co/docs/api-reference/errors#unauthorized' } } });
    app.clock.advance(6 * 60_000);
    await releaseDueJobs(app.t, app.clock);
    const failed = await waitFor(async () => {
      const s = await state(refusedId);
      return s.state === 'ERROR' ? s : undefined;
    }, 15_000, 'the post failed');
    expect(failed.error).toMatch(/^Its links could not be shortened: Dub .*Settings → Short links/);
    expect(app.sends().length).toBe(sent + 1);
  });
});
