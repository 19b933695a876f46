import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { loadConfig } from '../../config.js';
import { createDeps } from '../../deps.js';
import { call, expectError, manualClock, TEST_SECRET, useTestApp } from '../../../test/helpers.js';
import { createChannel } from '../../../test/factories.js';
import { feedItems } from '../../db/schema/index.js';

/**
 * Feeds through the HTTP API against a real HTTP server on loopback (ALLOW_PRIVATE_TARGETS lifts
 * the address policy for it, as for upload-from-url tests). The clock is manual: polls are driven
 * with POST /feeds/{id}/poll and the poller's `pollDue`.
 */

interface Served {
  status: number;
  body: string;
  type: string;
  etag?: string;
  lastModified?: string;
  /** never answer (a timeout) */
  hang?: boolean;
}

const served = new Map<string, Served>();
const seen: { path: string; ifNoneMatch?: string; ifModifiedSince?: string; status: number }[] = [];
let server: Server;
let origin = '';

function rss(items: { guid: string; title: string; date: string; link?: string; category?: string }[], title = 'Blog') {
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>${title}</title><link>http://blog</link>${items
    .map(
      (i) =>
        `<item><title>${i.title}</title><link>${i.link ?? `https://blog.example/${i.guid}`}</link><guid isPermaLink="false">${i.guid}</guid><description>&lt;p&gt;About &lt;b&gt;${i.title}&lt;/b&gt;&lt;/p&gt;</description>${i.category ? `<category>${i.category}</category>` : ''}<pubDate>${i.date}</pubDate></item>`,
    )
    .join('')}</channel></rss>`;
}

function serve(path: string, s: Partial<Served> & { body?: string }) {
  served.set(path, { status: 200, type: 'application/rss+xml', body: '', ...s });
}

const { t, orgs } = useTestApp(() => ({ clock: manualClock(), env: { ALLOW_PRIVATE_TARGETS: 'true', MEDIA_FETCH_TIMEOUT_SECONDS: '1' } }), 'Acme', 'Beta');
let sky = '';
let mastodon = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    const s = served.get(req.url ?? '');
    const ifNoneMatch = req.headers['if-none-match'];
    const ifModifiedSince = req.headers['if-modified-since'];
    if (!s) {
      seen.push({ path: req.url ?? '', status: 404 });
      res.writeHead(404).end('not found');
      return;
    }
    if (s.hang) return; // never answers
    if ((s.etag && ifNoneMatch === s.etag) || (!s.etag && s.lastModified && ifModifiedSince === s.lastModified)) {
      seen.push({ path: req.url ?? '', ifNoneMatch, ifModifiedSince, status: 304 });
      res.writeHead(304).end();
      return;
    }
    seen.push({ path: req.url ?? '', ifNoneMatch, ifModifiedSince, status: s.status });
    res.writeHead(s.status, { 'content-type': s.type, ...(s.etag ? { etag: s.etag } : {}), ...(s.lastModified ? { 'last-modified': s.lastModified } : {}) }).end(s.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sky = (await createChannel(t, orgs.acme, 'bluesky', { name: 'Acme Sky' })).id;
  mastodon = (await createChannel(t, orgs.acme, 'mastodon', { name: 'Acme Masto', instanceUrl: 'https://mastodon.example' })).id;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

type Item = { key: string; outcome: string; posts: { postId: string; integration: string; group: string }[]; group: string | null; error: string | null; title: string | null };

async function items(feedId: string): Promise<Item[]> {
  const res = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: `/public/v1/feeds/${feedId}/items` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ items: Item[] }>().items;
}

async function poll(feedId: string) {
  const res = await call(t.app, orgs.acme.apiKey, { method: 'POST', url: `/public/v1/feeds/${feedId}/poll` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ failures: number; lastError: string | null; status: string; nextPollAt: string; lastSuccessAt: string | null }>();
}

async function content(postId: string) {
  const res = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: `/public/v1/posts/${postId}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ content: string }>().content;
}

async function createFeed(payload: Record<string, unknown>) {
  const res = await call(t.app, orgs.acme.apiKey, { method: 'POST', url: '/public/v1/feeds', payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; title: string | null; status: string }>();
}

const posted = (list: Item[]) => list.filter((i) => i.outcome === 'posted');

describe('RSS', () => {
  let feedId = '';
  const base = [
    { guid: 'a', title: 'First', date: 'Mon, 02 Nov 2026 10:00:00 GMT' },
    { guid: 'b', title: 'Second', date: 'Tue, 03 Nov 2026 10:00:00 GMT' },
  ];

  it('the first poll records the back catalogue as skipped; a new item is posted once with the template', async () => {
    serve('/rss.xml', { body: rss(base), etag: '"v1"' });
    const feed = await createFeed({ url: `${origin}/rss.xml`, integrationIds: [sky], template: '{title}: {summary} {hashtags} {link}' });
    feedId = feed.id;
    expect(feed.title).toBe('Blog');
    expect((await items(feedId)).map((i) => [i.key, i.outcome]).sort()).toEqual([
      ['a', 'skipped'],
      ['b', 'skipped'],
    ]);

    serve('/rss.xml', { body: rss([...base, { guid: 'c', title: 'Third &amp; last', date: 'Wed, 04 Nov 2026 10:00:00 GMT', category: 'open source' }]), etag: '"v2"' });
    await poll(feedId);
    const list = await items(feedId);
    const c = list.find((i) => i.key === 'c')!;
    expect(c.outcome).toBe('posted');
    expect(c.posts).toHaveLength(1);
    expect(c.group).toBe(c.posts[0]!.group);
    expect(await content(c.posts[0]!.postId)).toBe('Third &amp; last: About Third &amp; last #OpenSource https://blog.example/c');
    // polled again (same content): nothing new
    await poll(feedId);
    expect(posted(await items(feedId))).toHaveLength(1);
  });

  it('ETag honoured: the conditional request is answered 304 and nothing is posted', async () => {
    const before = seen.length;
    const feed = await poll(feedId);
    const last = seen.slice(before);
    expect(last).toEqual([{ path: '/rss.xml', ifNoneMatch: '"v2"', ifModifiedSince: undefined, status: 304 }]);
    expect(feed.failures).toBe(0);
    expect(posted(await items(feedId))).toHaveLength(1);
  });

  it('rewritten dates (same guid, new pubDate) do not repost', async () => {
    serve('/rss.xml', {
      body: rss([
        { guid: 'a', title: 'First', date: 'Fri, 06 Nov 2026 10:00:00 GMT' },
        { guid: 'b', title: 'Second', date: 'Fri, 06 Nov 2026 11:00:00 GMT' },
        { guid: 'c', title: 'Third', date: 'Fri, 06 Nov 2026 12:00:00 GMT' },
      ]),
      etag: '"v3"',
    });
    await poll(feedId);
    const list = await items(feedId);
    expect(list).toHaveLength(3);
    expect(posted(list).map((i) => i.key)).toEqual(['c']);
  });

  it('two polls racing on a new item post it once', async () => {
    serve('/rss.xml', { body: rss([...base, { guid: 'd', title: 'Fourth', date: 'Sat, 07 Nov 2026 10:00:00 GMT' }]), etag: '"v4"' });

    await Promise.all([
      call(t.app, orgs.acme.apiKey, { method: 'POST', url: `/public/v1/feeds/${feedId}/poll` }),
      call(t.app, orgs.acme.apiKey, { method: 'POST', url: `/public/v1/feeds/${feedId}/poll` }),
      t.deps.services.feeds.pollDue(),
    ]);
    const d = (await items(feedId)).filter((i) => i.key === 'd');
    expect(d).toHaveLength(1);
    expect(d[0]!.posts).toHaveLength(1);
    const groups = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: `/public/v1/posts/group/${d[0]!.group}` });
    expect(groups.json<{ posts: unknown[] }>().posts).toHaveLength(1);
  });

  it('new items are posted once each across a restart (a new app on the same database)', async () => {
    serve('/rss.xml', { body: rss([...base, { guid: 'e', title: 'Fifth', date: 'Sun, 08 Nov 2026 10:00:00 GMT' }]), etag: '"v5"' });
    const config = loadConfig({ CREDENTIALS_SECRET: TEST_SECRET, API_RATE_LIMIT: '100000', DATA_DIR: '/nonexistent-test-data-dir', ALLOW_PRIVATE_TARGETS: 'true' });
    for (let round = 0; round < 2; round++) {
      const deps = await createDeps(config, { database: t.testDb.database, clock: t.clock });
      const app = await buildApp(deps, { webApp: false });
      await app.ready();
      const res = await call(app, orgs.acme.apiKey, { method: 'POST', url: `/public/v1/feeds/${feedId}/poll` });
      expect(res.statusCode, res.body).toBe(200);
      await app.close();
      await deps.close();
    }
    const e = (await items(feedId)).filter((i) => i.key === 'e');
    expect(e.map((i) => [i.outcome, i.posts.length])).toEqual([['posted', 1]]);
  });
});

describe('Atom and JSON Feed, backfill', () => {
  it('Atom: backfill 1 posts the newest entry on two channels, the rest skipped', async () => {
    serve('/atom.xml', {
      type: 'application/atom+xml',
      lastModified: 'Mon, 02 Nov 2026 10:00:00 GMT',
      body: `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Atomic</title><id>urn:f</id><updated>2026-11-02T00:00:00Z</updated>
        <entry><title>Old</title><id>urn:1</id><link href="https://a.example/1"/><summary>old one</summary><updated>2026-10-01T00:00:00Z</updated><author><name>Ann</name></author></entry>
        <entry><title>New</title><id>urn:2</id><link href="https://a.example/2"/><summary type="html">&lt;i&gt;fresh&lt;/i&gt;</summary><updated>2026-11-01T00:00:00Z</updated><author><name>Ann</name></author></entry></feed>`,
    });
    const feed = await createFeed({ url: `${origin}/atom.xml`, integrationIds: [sky, mastodon], template: '{title} by {author} — {summary} {link}', backfill: 1 });
    const list = await items(feed.id);
    expect(list.map((i) => [i.key, i.outcome]).sort()).toEqual([
      ['urn:1', 'skipped'],
      ['urn:2', 'posted'],
    ]);
    const item = list.find((i) => i.key === 'urn:2')!;
    expect(item.posts.map((p) => p.integration).sort()).toEqual([sky, mastodon].sort());
    expect(await content(item.posts[0]!.postId)).toBe('New by Ann — fresh https://a.example/2');
    // Last-Modified sent back: 304
    const before = seen.length;
    await poll(feed.id);
    expect(seen.slice(before)).toEqual([{ path: '/atom.xml', ifNoneMatch: undefined, ifModifiedSince: 'Mon, 02 Nov 2026 10:00:00 GMT', status: 304 }]);
  });

  it('JSON Feed: a new item posted with the default template; draft mode makes drafts', async () => {
    const jf = (items: object[]) => JSON.stringify({ version: 'https://jsonfeed.org/version/1.1', title: 'Jay', items });
    serve('/feed.json', { type: 'application/feed+json', body: jf([{ id: '1', url: 'https://j.example/1', title: 'One', content_text: 'x' }]) });
    const feed = await createFeed({ url: `${origin}/feed.json`, integrationIds: [sky], mode: 'draft' });
    serve('/feed.json', { type: 'application/feed+json', body: jf([{ id: '2', url: 'https://j.example/2', title: 'Two', content_text: 'y', date_published: '2026-11-02T00:00:00Z' }, { id: '1', url: 'https://j.example/1', title: 'One', content_text: 'x' }]) });
    await poll(feed.id);
    const two = (await items(feed.id)).find((i) => i.key === '2')!;
    expect(two.outcome).toBe('draft');
    const res = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: `/public/v1/posts/${two.posts[0]!.postId}` });
    expect(res.json<{ content: string; status?: string }>()).toMatchObject({ content: 'Two https://j.example/2' });
  });
});

describe('crash recovery and slots', () => {
  it('an item a crashed poller left pending is posted by the next poll, once; slot mode schedules at the next free slot', async () => {
    serve('/slot.xml', { body: rss([{ guid: 's1', title: 'S1', date: 'Mon, 02 Nov 2026 10:00:00 GMT' }]) });
    const feed = await createFeed({ url: `${origin}/slot.xml`, integrationIds: [sky], mode: 'slot' });
    // a poller claimed s2 and died before making its posts
    await t.testDb.database.db.insert(feedItems).values({ feedId: feed.id, key: 's2', title: 'S2', link: null, firstSeenAt: new Date(t.clock.now()), outcome: 'pending' });
    serve('/slot.xml', { body: rss([{ guid: 's1', title: 'S1', date: 'Mon, 02 Nov 2026 10:00:00 GMT' }, { guid: 's2', title: 'S2', date: 'Tue, 03 Nov 2026 10:00:00 GMT' }]) });
    await poll(feed.id);
    await poll(feed.id);
    const s2 = (await items(feed.id)).filter((i) => i.key === 's2');
    expect(s2.map((i) => [i.outcome, i.posts.length])).toEqual([['posted', 1]]);
    const post = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: `/public/v1/posts/${s2[0]!.posts[0]!.postId}` });
    const slot = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: `/public/v1/find-slot/${sky}` });
    expect(Date.parse(post.json<{ publishDate: string }>().publishDate)).toBeGreaterThan(t.clock.now());
    expect(slot.json<{ date: string }>().date).not.toBe(post.json<{ publishDate: string }>().publishDate);
  });
});

describe('broken feeds', () => {
  it('404, garbage and a timeout are recorded with backoff, never an error of ours; the feed recovers', async () => {
    serve('/flaky.xml', { body: rss([{ guid: 'x', title: 'X', date: 'Mon, 02 Nov 2026 10:00:00 GMT' }]) });
    const feed = await createFeed({ url: `${origin}/flaky.xml`, integrationIds: [sky] });
    served.delete('/flaky.xml');
    let f = await poll(feed.id);
    expect(f.failures).toBe(1);
    expect(f.lastError).toMatch(/404/);
    expect(Date.parse(f.nextPollAt) - t.clock.now()).toBe(15 * 60_000);
    serve('/flaky.xml', { type: 'text/html', body: '<html><body>oops</body></html>' });
    f = await poll(feed.id);
    expect(f.failures).toBe(2);
    expect(f.lastError).toMatch(/not an RSS, Atom or JSON feed/);
    expect(Date.parse(f.nextPollAt) - t.clock.now()).toBe(30 * 60_000);
    serve('/flaky.xml', { hang: true });
    f = await poll(feed.id);
    expect(f.failures).toBe(3);
    expect(f.lastError).toMatch(/within/);
    for (let i = 0; i < 2; i++) f = await poll(feed.id);
    expect(f.status).toBe('failing');
    expect(f.failures).toBe(5);
    const notes = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: '/public/v1/notifications' });
    expect(notes.body).toContain('failed 5 times in a row');
    // recovers: the count resets, and a new item meanwhile is posted, none lost
    serve('/flaky.xml', { body: rss([{ guid: 'x', title: 'X', date: 'Mon, 02 Nov 2026 10:00:00 GMT' }, { guid: 'y', title: 'Y', date: 'Tue, 03 Nov 2026 10:00:00 GMT' }]) });
    f = await poll(feed.id);
    expect([f.failures, f.status]).toEqual([0, 'active']);
    expect(posted(await items(feed.id)).map((i) => i.key)).toEqual(['y']);
  });
});

describe('input', () => {
  it('bad input → 400 naming the field; non-UUID and other organisations\' ids → 404', async () => {
    serve('/ok.xml', { body: rss([]) });
    let res = await call(t.app, orgs.acme.apiKey, { method: 'POST', url: '/public/v1/feeds', payload: { url: `${origin}/ok.xml`, integrationIds: [sky], template: '{title} {nope}' } });
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields?.map((f) => f.path)).toEqual(['template']);
    res = await call(t.app, orgs.acme.apiKey, { method: 'POST', url: '/public/v1/feeds', payload: { url: `${origin}/missing.xml`, integrationIds: [sky] } });
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields?.map((f) => f.path)).toEqual(['url']);
    serve('/page.html', { type: 'text/html', body: '<html></html>' });
    res = await call(t.app, orgs.acme.apiKey, { method: 'POST', url: '/public/v1/feeds', payload: { url: `${origin}/page.html`, integrationIds: [sky] } });
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields?.map((f) => f.path)).toEqual(['url']);
    res = await call(t.app, orgs.acme.apiKey, { method: 'POST', url: '/public/v1/feeds', payload: { url: `${origin}/ok.xml`, integrationIds: ['nope'] } });
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields?.map((f) => f.path)).toEqual(['integrationIds.0']);
    res = await call(t.app, orgs.acme.apiKey, { method: 'POST', url: '/public/v1/feeds', payload: { url: `${origin}/ok.xml`, integrationIds: [sky], mode: 'sometimes', pollMinutes: 1 } });
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields?.map((f) => f.path).sort()).toEqual(['mode', 'pollMinutes']);
    for (const url of ['/public/v1/feeds/not-a-uuid', '/public/v1/feeds/not-a-uuid/items']) {
      expectError(await call(t.app, orgs.acme.apiKey, { method: 'GET', url }), 404, 'NOT_FOUND');
    }
    expectError(await call(t.app, orgs.acme.apiKey, { method: 'POST', url: '/public/v1/feeds/not-a-uuid/poll' }), 404, 'NOT_FOUND');
    const feed = await createFeed({ url: `${origin}/ok.xml`, integrationIds: [sky] });
    expectError(await call(t.app, orgs.beta.apiKey, { method: 'GET', url: `/public/v1/feeds/${feed.id}` }), 404, 'NOT_FOUND');
    res = await call(t.app, orgs.acme.apiKey, { method: 'PATCH', url: `/public/v1/feeds/${feed.id}`, payload: { template: '{link}', mode: 'slot' } });
    expect(res.json()).toMatchObject({ template: '{link}', mode: 'slot' });
    res = await call(t.app, orgs.acme.apiKey, { method: 'DELETE', url: `/public/v1/feeds/${feed.id}` });
    expect(res.json()).toEqual({ id: feed.id, deleted: true });
    expectError(await call(t.app, orgs.acme.apiKey, { method: 'GET', url: `/public/v1/feeds/${feed.id}` }), 404, 'NOT_FOUND');
  });
});
