import { describe, expect, it } from 'vitest';
import { contractMediaHost, contractMediaOrigins, platformFailure, runSimulatorContract, type ContractMediaHost } from '../common/unit.testkit.js';
import type { ConnectedAccount, PlatformAdapter } from '../platform.js';
import { devtoError } from './errors.js';
import { createDevtoAdapter } from './index.js';
import { DEV_KEY, DEV_ORG, DEV_USER, devtoSimulator, image, MEDIA_ORIGIN, originsFor, PNG, sha, withCreds, withDevto, type TestCtx } from './devto.testkit.js';

const adapter = createDevtoAdapter();

/**
 * The contract's posts as DEV articles: every article needs a title, so the contract's posts get
 * one; nothing else changes. DEV takes the cover by URL, so the contract's media item
 * (`https://media.example/1.png`) is served by a tiny host the simulator really fetches from.
 */
const asArticles: PlatformAdapter = {
  ...adapter,
  publish: (input, ctx) => adapter.publish({ ...input, settings: { title: 'Contract article', ...input.settings } }, ctx),
};

// DEV's API cannot post comments (the metadata says `thread.supported: false`), so the contract's
// thread case cannot apply; the adapter's answer to a reply is tested below.
runSimulatorContract({ name: 'devto', adapter: asArticles, errorsIn200: false, host: contractMediaHost, start: (host: ContractMediaHost) => devtoSimulator({ mediaOrigins: contractMediaOrigins(host) }), origins: originsFor, connect: { apiKey: DEV_KEY } });

const connect = (ctx: TestCtx) => adapter.connectWithCredentials!({ apiKey: DEV_KEY }, ctx);
const publishWith = (ctx: TestCtx, account: ConnectedAccount, content: string, settings: Record<string, unknown>, media = [] as ReturnType<typeof image>[]) =>
  adapter.publish({ item: { content, media }, settings, idempotencyKey: content }, withCreds(ctx, account));

describe('devto: connecting', () => {
  it('verifies the key with /users/me, sending it as the api-key header with the v1 Accept header', async () => {
    await withDevto({}, async (sim, ctx) => {
      const account = await connect(ctx);
      expect(account).toEqual({ internalId: String(DEV_USER.id), name: 'Acme Dev', profile: 'acmedev', picture: DEV_USER.profile_image, credentials: { apiKey: DEV_KEY }, expiresAt: null });
      const me = sim.log.find((l) => l.path === '/api/users/me')!;
      expect(me.headers['api-key']).toBe(DEV_KEY);
      expect(me.headers.accept).toBe('application/vnd.forem.api-v1+json');
    });
  });

  it('a wrong or revoked key is refused naming apiKey; a DEV outage is not blamed on the key', async () => {
    await withDevto({}, async (sim, ctx) => {
      const wrong = await platformFailure(adapter.connectWithCredentials!({ apiKey: 'not-a-key' }, ctx));
      expect({ kind: wrong.kind, field: wrong.details.field, message: wrong.message }).toEqual({ kind: 'rejected', field: 'apiKey', message: 'DEV refused the API key: unauthorized' });
      sim.inject({ path: /users\/me/, status: 503, body: '<html>Service Unavailable</html>' });
      expect((await platformFailure(connect(ctx))).kind).toBe('transient');
      const account = await connect(ctx);
      sim.revokeKey(DEV_KEY);
      const revoked = await platformFailure(publishWith(ctx, account, '<p>x</p>', { title: 'After revoking' }));
      expect({ kind: revoked.kind, field: revoked.details.field }).toEqual({ kind: 'reconnect_required', field: 'apiKey' });
    });
  });
});

describe('devto: publishing articles', () => {
  it('maps the settings into the article: Markdown body, tag names, canonical URL, series, organization, cover pulled by URL', async () => {
    const cover = PNG(1);
    await withDevto({ files: new Map([['/media/2026/01/cover.png', cover]]) }, async (sim, ctx, host) => {
      const account = await connect(ctx);
      const r = await publishWith(ctx, account, '<h2>Why</h2><p>Queues <strong>matter</strong>, see <a href="https://example.com">this</a>.</p><ul><li>one</li></ul>', {
        title: 'Queues on PostgreSQL',
        tags: [{ value: 555, label: 'node' }, { value: 4321, label: 'Postgres' }],
        canonical: 'https://blog.example.com/queues',
        series: 'Scheduling',
        organization: String(DEV_ORG.id),
        main_image: { id: 'cover', path: `${MEDIA_ORIGIN}/media/2026/01/cover.png` },
      });
      if (r.status !== 'published') throw new Error('expected published');
      const a = sim.articles.find((x) => String(x.id) === r.id)!;
      expect(r.url).toBe(a.url);
      expect(r.url).toMatch(/^https:\/\/dev\.to\/acmecorp\/queues-on-postgresql-[0-9a-f]{4}$/);
      expect(a).toMatchObject({
        title: 'Queues on PostgreSQL',
        bodyMarkdown: '## Why\n\nQueues **matter**, see [this](https://example.com).\n\n-   one',
        tags: ['node', 'postgres'],
        canonicalUrl: 'https://blog.example.com/queues',
        series: 'Scheduling',
        organizationId: DEV_ORG.id,
        published: true,
      });
      expect(a.cover).toEqual({ url: `${MEDIA_ORIGIN}/media/2026/01/cover.png`, sha256: sha(cover), size: cover.length, contentType: 'image/png' });
      expect(host.hits).toEqual(['/media/2026/01/cover.png']);
      const sent = sim.log.find((l) => l.method === 'POST' && l.path === '/api/articles')!;
      expect(sent.body).toEqual({
        article: {
          title: 'Queues on PostgreSQL',
          body_markdown: a.bodyMarkdown,
          published: true,
          tags: ['node', 'postgres'],
          canonical_url: 'https://blog.example.com/queues',
          series: 'Scheduling',
          organization_id: DEV_ORG.id,
          main_image: `${MEDIA_ORIGIN}/media/2026/01/cover.png`,
        },
      });
    });
  });

  it('the post’s picture is the cover when no main_image is set; the main_image setting wins over it', async () => {
    const [p1, p2] = [PNG(2), PNG(3)];
    await withDevto({ files: new Map([['/media/2026/01/p1.png', p1], ['/media/2026/01/p2.png', p2]]) }, async (sim, ctx) => {
      const account = await connect(ctx);
      const a = await publishWith(ctx, account, '<p>a</p>', { title: 'Picture as cover' }, [image('p1')]);
      const b = await publishWith(ctx, account, '<p>b</p>', { title: 'Setting wins', main_image: { id: 'p2', path: `${MEDIA_ORIGIN}/media/2026/01/p2.png` } }, [image('p1')]);
      if (a.status !== 'published' || b.status !== 'published') throw new Error('expected published');
      expect(sim.lookup(a.id)!.mediaSha256).toEqual([sha(p1)]);
      expect(sim.lookup(b.id)!.mediaSha256).toEqual([sha(p2)]);
    });
  });

  it('refuses what DEV refuses, with DEV’s words: a used canonical URL, an organization not yours, a cover it cannot fetch', async () => {
    await withDevto({}, async (sim, ctx) => {
      const account = await connect(ctx);
      await publishWith(ctx, account, '<p>one</p>', { title: 'First', canonical: 'https://blog.example.com/a' });
      const dup = await platformFailure(publishWith(ctx, account, '<p>two</p>', { title: 'Second', canonical: 'https://blog.example.com/a' }));
      expect({ kind: dup.kind, message: dup.message, status: dup.details.status }).toEqual({ kind: 'rejected', message: 'Validation failed: Canonical url has already been taken', status: 422 });
      const org = await platformFailure(publishWith(ctx, account, '<p>x</p>', { title: 'Elsewhere', organization: '7002' }));
      expect(org.message).toBe('Validation failed: Organization is not one you are a member of');
      const gone = await platformFailure(publishWith(ctx, account, '<p>x</p>', { title: 'No cover' }, [image('missing')]));
      expect(gone.message).toMatch(/^Validation failed: Main image could not be downloaded/);
      expect(sim.articles).toHaveLength(1);
    });
  });

  it('a cover that is not https, or a reply, is refused before anything is sent', async () => {
    await withDevto({}, async (sim, ctx) => {
      const account = await connect(ctx);
      const local = await platformFailure(publishWith(ctx, account, '<p>x</p>', { title: 'Local cover' }, [{ ...image('l'), path: 'http://localhost:3000/media/l.png' }]));
      expect(local.message).toMatch(/is not https: set PUBLIC_URL/);
      const reply = await platformFailure(adapter.publish({ item: { content: '<p>r</p>', media: [] }, settings: { title: 'Reply' }, replyTo: { id: '1', rootId: '1' }, idempotencyKey: 'r' }, withCreds(ctx, account)));
      expect(reply.kind).toBe('unsupported');
      expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(0);
    });
  });

  it('DEV’s real rate limit on articles: 429 with the wait of its window', async () => {
    await withDevto({ articlesPerWindow: 2, windowSeconds: 30 }, async (sim, ctx) => {
      const account = await connect(ctx);
      await publishWith(ctx, account, '<p>1</p>', { title: 'One one' });
      await publishWith(ctx, account, '<p>2</p>', { title: 'Two two' });
      const err = await platformFailure(publishWith(ctx, account, '<p>3</p>', { title: 'Three three' }));
      expect(err.kind).toBe('rate_limited');
      expect(err.details.retryAfterSeconds).toBeGreaterThan(0);
      expect(err.details.retryAfterSeconds).toBeLessThanOrEqual(30);
      expect(sim.articles).toHaveLength(2);
    });
  });

  it('validate names the settings DEV would refuse', () => {
    const issues = adapter.validate({ settings: { title: 'Ok', tags: [{ value: 1, label: 'node' }, { value: 2, label: 'web-dev' }], organization: 'acme' }, items: [{ content: 'x', media: [] }] });
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ['settings.tags.1', 'tag_alphanumeric'],
      ['settings.organization', 'organization_id'],
    ]);
    expect(adapter.validate({ settings: { title: 'Ok', tags: [{ value: 1, label: 'node' }], organization: '7001' }, items: [] })).toEqual([]);
  });
});

describe('devto: reading back', () => {
  it('findRecent lists the account’s published articles since the date, newest first, without drafts or older ones', async () => {
    await withDevto({}, async (sim, ctx) => {
      const account = await connect(ctx);
      const since = new Date(Date.now() - 60_000);
      sim.addArticle({ userId: DEV_USER.id, title: 'Old one', publishedAt: new Date(Date.now() - 3_600_000).toISOString() });
      sim.addArticle({ userId: DEV_USER.id, title: 'A draft', published: false, publishedAt: null });
      const first = await publishWith(ctx, account, '<p>first <em>one</em></p>', { title: 'First article' });
      const second = await publishWith(ctx, account, '<p>second</p>', { title: 'Second article' });
      if (first.status !== 'published' || second.status !== 'published') throw new Error('expected published');
      sim.articles.find((a) => String(a.id) === first.id)!.publishedAt = new Date(Date.now() - 1000).toISOString();
      const recent = await adapter.findRecent!({ since, limit: 10 }, withCreds(ctx, account));
      expect(recent.map((r) => [r.id, r.content, r.url])).toEqual([
        [second.id, 'second', second.url],
        [first.id, 'first _one_', first.url],
      ]);
      expect(sim.log.find((l) => l.path.startsWith('/api/articles/me/all'))!.path).toBe('/api/articles/me/all?page=1&per_page=100');
      expect(await adapter.findRecent!({ since, limit: 1 }, withCreds(ctx, account))).toHaveLength(1);
    });
  });

  it('postAnalytics: the article’s views, reactions and comments', async () => {
    await withDevto({}, async (sim, ctx) => {
      const account = await connect(ctx);
      const r = await publishWith(ctx, account, '<p>counted</p>', { title: 'Counted article' });
      if (r.status !== 'published') throw new Error('expected published');
      sim.setFigures(Number(r.id), { pageViews: 321, reactions: 12, comments: 3 });
      const today = new Date().toISOString().slice(0, 10);
      expect(await adapter.postAnalytics!(r.id, 7, withCreds(ctx, account))).toEqual([
        { label: 'Views', percentageChange: 0, data: [{ date: today, total: 321 }] },
        { label: 'Reactions', percentageChange: 0, data: [{ date: today, total: 12 }] },
        { label: 'Comments', percentageChange: 0, data: [{ date: today, total: 3 }] },
      ]);
      expect((await platformFailure(adapter.postAnalytics!('999', 7, withCreds(ctx, account)))).kind).toBe('rejected');
    });
  });

  it('tools: DEV’s tags as {value: id, label: name}; the organizations the account publishes under, with their ids', async () => {
    await withDevto({}, async (sim, ctx) => {
      const account = await connect(ctx);
      const tags = (await adapter.runTool!('tags', {}, withCreds(ctx, account))) as { value: number; label: string }[];
      expect(tags).toContainEqual({ value: 555, label: 'node' });
      expect(await adapter.runTool!('organizations', {}, withCreds(ctx, account))).toEqual([]);
      sim.addArticle({ userId: DEV_USER.id, title: 'Under the org', organizationId: DEV_ORG.id });
      sim.addArticle({ userId: DEV_USER.id, title: 'Again under the org', organizationId: DEV_ORG.id });
      expect(await adapter.runTool!('organizations', {}, withCreds(ctx, account))).toEqual([{ id: '7001', name: 'Acme Corp', username: 'acmecorp' }]);
      expect((await platformFailure(adapter.runTool!('nope', {}, withCreds(ctx, account)))).kind).toBe('unsupported');
    });
  });
});

describe('devto: errors', () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body });
  it('sorts DEV’s {error, status} answers into kinds, keeping its words', () => {
    expect(devtoError(res(201, { id: 1 }))).toBeUndefined();
    expect(devtoError(res(401, { error: 'unauthorized', status: 401 }))).toMatchObject({ kind: 'reconnect_required', details: { field: 'apiKey', status: 401 } });
    expect(devtoError(res(429, { error: 'Rate limit reached, try again in 30 seconds', status: 429 }, { 'retry-after': '12' }))).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 12 } });
    expect(devtoError(res(429, { error: 'Rate limit reached, try again in 7 seconds', status: 429 }))!.details.retryAfterSeconds).toBe(7);
    expect(devtoError(res(429, { error: 'slow down', status: 429 }))!.details.retryAfterSeconds).toBe(30);
    expect(devtoError(res(422, { error: "Validation failed: Title can't be blank", status: 422 }))).toMatchObject({ kind: 'rejected', message: "Validation failed: Title can't be blank" });
    expect(devtoError(res(404, { error: 'not found', status: 404 }))!.kind).toBe('rejected');
    expect(devtoError(res(502, '<html>Bad gateway</html>'))).toMatchObject({ kind: 'transient', message: '<html>Bad gateway</html>' });
  });
});
