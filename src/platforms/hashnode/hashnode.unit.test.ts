import { describe, expect, it } from 'vitest';
import { contractMediaHost, contractMediaOrigins, platformFailure, runSimulatorContract, type ContractMediaHost } from '../common/unit.testkit.js';
import type { ConnectedAccount, PlatformAdapter } from '../platform.js';
import { hashnodeError } from './errors.js';
import { createHashnodeAdapter } from './index.js';
import {
  BLOG,
  HN_TOKEN,
  HN_USER,
  hashnodeSimulator,
  image,
  JS_TAG,
  MEDIA_ORIGIN,
  NEWS,
  NODE_TAG,
  originsFor,
  OTHERS,
  PG_TAG,
  PNG,
  sha,
  published,
  withCreds,
  withHashnode,
  type TestCtx,
} from './hashnode.testkit.js';

const adapter = createHashnodeAdapter();

/**
 * The contract's posts as Hashnode posts: each needs a title, a publication and a tag, so the
 * contract's posts get them (the tag by slug, so the `tag(slug:)` lookup runs too); nothing else
 * changes. Hashnode takes the cover by URL: the contract's media item
 * (`https://media.example/1.png`) is served by a tiny host the simulator really fetches from.
 */
const asPosts: PlatformAdapter = {
  ...adapter,
  publish: (input, ctx) => adapter.publish({ ...input, settings: { title: 'Contract post', publication: BLOG.id, tags: [{ value: 'javascript', label: 'JavaScript' }], ...input.settings } }, ctx),
};

// Hashnode's API cannot post comments (the metadata says `thread.supported: false`), so the
// contract's thread case cannot apply; the adapter's answer to a reply is tested below.
runSimulatorContract({ name: 'hashnode', adapter: asPosts, errorsIn200: true, host: contractMediaHost, start: (host: ContractMediaHost) => hashnodeSimulator({ mediaOrigins: contractMediaOrigins(host) }), origins: originsFor, connect: { token: HN_TOKEN } });

const connect = (ctx: TestCtx) => adapter.connectWithCredentials!({ token: HN_TOKEN }, ctx);
const base = { title: 'Queues on PostgreSQL', publication: BLOG.id, tags: [{ value: 'postgresql', label: 'PostgreSQL' }] };
const publishWith = (ctx: TestCtx, account: ConnectedAccount, content: string, settings: Record<string, unknown>, media = [] as ReturnType<typeof image>[]) =>
  adapter.publish({ item: { content, media }, settings: { ...base, ...settings }, idempotencyKey: content }, withCreds(ctx, account));

describe('hashnode: connecting', () => {
  it('verifies the token with the `me` query, sent as the Authorization header', async () => {
    await withHashnode({}, async (sim, ctx) => {
      const account = await connect(ctx);
      expect(account).toEqual({ internalId: HN_USER.id, name: 'Acme Writes', profile: 'acmewrites', picture: HN_USER.profilePicture, credentials: { token: HN_TOKEN }, expiresAt: null });
      expect(sim.log[0]!.headers.authorization).toBe(HN_TOKEN);
      expect(sim.operations[0]).toMatchObject({ name: 'Me', type: 'query', root: ['me'] });
    });
  });

  it('a wrong token (UNAUTHENTICATED inside HTTP 200) is refused naming token; a revoked one later asks for a reconnect', async () => {
    await withHashnode({}, async (sim, ctx) => {
      const wrong = await platformFailure(adapter.connectWithCredentials!({ token: 'not-a-token' }, ctx));
      expect({ kind: wrong.kind, field: wrong.details.field, message: wrong.message }).toEqual({
        kind: 'rejected',
        field: 'token',
        message: 'Hashnode refused the token: You must be logged in to view this information.',
      });
      expect(sim.log.at(-1)!.body).toMatchObject({ operationName: 'Me' });
      const account = await connect(ctx);
      sim.revokeToken(HN_TOKEN);
      const revoked = await platformFailure(publishWith(ctx, account, '<p>x</p>', { tags: [{ value: JS_TAG.id, label: 'JavaScript' }] }));
      expect({ kind: revoked.kind, field: revoked.details.field, code: revoked.details.platformCode }).toEqual({ kind: 'reconnect_required', field: 'token', code: 'UNAUTHENTICATED' });
    });
  });
});

describe('hashnode: publishing posts', () => {
  it('maps the settings into publishPost: Markdown, tags by id (slugs looked up), subtitle, canonical URL, cover pulled by URL', async () => {
    const cover = PNG(11);
    await withHashnode({ files: new Map([['/media/2026/01/cover.png', cover]]) }, async (sim, ctx, host) => {
      const account = await connect(ctx);
      const r = published(
        await publishWith(ctx, account, '<h2>Why</h2><p>Queues <em>matter</em>.</p><pre><code>select 1;</code></pre>', {
          subtitle: 'pg-boss in practice',
          canonical: 'https://blog.example.com/queues',
          tags: [{ value: 'PostgreSQL', label: 'PostgreSQL' }, { value: JS_TAG.id, label: 'JavaScript' }, { value: 'nodejs', label: 'Node.js' }],
          main_image: { id: 'cover', path: `${MEDIA_ORIGIN}/media/2026/01/cover.png` },
        }),
      );
      const post = sim.posts.find((p) => p.id === r.id)!;
      expect(r.url).toBe('https://acme.hashnode.dev/queues-on-postgresql');
      expect(post).toMatchObject({
        publicationId: BLOG.id,
        title: 'Queues on PostgreSQL',
        subtitle: 'pg-boss in practice',
        markdown: '## Why\n\nQueues _matter_.\n\n```\nselect 1;\n```',
        tagIds: [PG_TAG.id, JS_TAG.id, NODE_TAG.id],
        canonicalUrl: 'https://blog.example.com/queues',
      });
      expect(post.cover).toEqual({ url: `${MEDIA_ORIGIN}/media/2026/01/cover.png`, sha256: sha(cover), size: cover.length, contentType: 'image/png' });
      expect(host.hits).toEqual(['/media/2026/01/cover.png']);
      // Two slugs looked up (the id is used as it is), then the mutation.
      expect(sim.operations.slice(1).map((o) => [o.name, o.variables])).toEqual([
        ['TagBySlug', { slug: 'postgresql' }],
        ['TagBySlug', { slug: 'nodejs' }],
        [
          'PublishPost',
          {
            input: {
              title: 'Queues on PostgreSQL',
              publicationId: BLOG.id,
              contentMarkdown: post.markdown,
              tags: [{ id: PG_TAG.id }, { id: JS_TAG.id }, { id: NODE_TAG.id }],
              subtitle: 'pg-boss in practice',
              originalArticleURL: 'https://blog.example.com/queues',
              coverImageOptions: { coverImageURL: `${MEDIA_ORIGIN}/media/2026/01/cover.png` },
            },
          },
        ],
      ]);
    });
  });

  it('refuses what Hashnode refuses, with its words: an unknown tag, a publication not yours or without Pro, a cover it cannot fetch', async () => {
    await withHashnode({}, async (sim, ctx) => {
      const account = await connect(ctx);
      const tag = await platformFailure(publishWith(ctx, account, '<p>x</p>', { tags: [{ value: 'no-such-tag', label: 'Nope' }] }));
      expect({ kind: tag.kind, message: tag.message }).toEqual({ kind: 'rejected', message: 'Hashnode has no tag "Nope" (slug "no-such-tag")' });
      expect(sim.operations.some((o) => o.type === 'mutation')).toBe(false);
      const forbidden = await platformFailure(publishWith(ctx, account, '<p>x</p>', { publication: OTHERS.id }));
      expect({ kind: forbidden.kind, code: forbidden.details.platformCode, message: forbidden.message }).toEqual({ kind: 'rejected', code: 'FORBIDDEN', message: 'You are not allowed to publish in this publication.' });
      sim.publications.find((p) => p.id === NEWS.id)!.pro = false;
      const notPro = await platformFailure(publishWith(ctx, account, '<p>x</p>', { publication: NEWS.id }));
      expect({ kind: notPro.kind, message: notPro.message }).toEqual({ kind: 'rejected', message: 'Publication does not have an active Pro plan. Upgrade in your dashboard to access this via the API.' });
      const unknownId = await platformFailure(publishWith(ctx, account, '<p>x</p>', { tags: [{ value: '000000000000000000000000', label: 'Gone' }] }));
      expect({ code: unknownId.details.platformCode, message: unknownId.message }).toEqual({ code: 'BAD_USER_INPUT', message: 'Invalid tag: 000000000000000000000000' });
      const cover = await platformFailure(publishWith(ctx, account, '<p>x</p>', {}, [image('missing')]));
      expect(cover.message).toMatch(/^Could not fetch the cover image from/);
      expect(sim.posts).toHaveLength(0);
    });
  });

  it('a cover that is not https, a reply, or a missing publication is refused before anything is published', async () => {
    await withHashnode({}, async (sim, ctx) => {
      const account = await connect(ctx);
      expect((await platformFailure(publishWith(ctx, account, '<p>x</p>', {}, [{ ...image('l'), path: 'http://localhost/media/l.png' }]))).message).toMatch(/is not https/);
      expect((await platformFailure(publishWith(ctx, account, '<p>x</p>', { publication: undefined }))).message).toBe('A Hashnode post needs a publication (settings.publication)');
      const reply = await platformFailure(adapter.publish({ item: { content: '<p>r</p>', media: [] }, settings: base, replyTo: { id: 'a', rootId: 'a' }, idempotencyKey: 'r' }, withCreds(ctx, account)));
      expect(reply.kind).toBe('unsupported');
      expect(sim.operations.filter((o) => o.type === 'mutation')).toHaveLength(0);
    });
  });

  it('mutations over the per-minute limit get HTTP 429 with Retry-After: rate_limited with that wait', async () => {
    await withHashnode({ mutationsPerMinute: 1 }, async (sim, ctx) => {
      const account = await connect(ctx);
      published(await publishWith(ctx, account, '<p>one</p>', { title: 'First of the minute' }));
      const err = await platformFailure(publishWith(ctx, account, '<p>two</p>', { title: 'Second of the minute' }));
      expect({ kind: err.kind, code: err.details.platformCode, status: err.details.status }).toEqual({ kind: 'rate_limited', code: 'TOO_MANY_REQUESTS', status: 429 });
      expect(err.details.retryAfterSeconds).toBeGreaterThan(0);
      expect(err.details.retryAfterSeconds).toBeLessThanOrEqual(60);
      expect(sim.posts).toHaveLength(1);
    });
  });

  it('validate names the tags and publication Hashnode could not take', () => {
    const issues = adapter.validate({ settings: { ...base, publication: 'my blog', tags: [{ value: 'node js', label: 'x' }, { value: JS_TAG.id, label: 'JS' }] }, items: [] });
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ['settings.tags.0', 'tag_slug'],
      ['settings.publication', 'publication_id'],
    ]);
    expect(adapter.validate({ settings: base, items: [] })).toEqual([]);
  });
});

describe('hashnode: the simulator is a GraphQL endpoint', () => {
  const post = (origin: string, query: string, variables: Record<string, unknown> = {}, token = HN_TOKEN) =>
    fetch(origin, { method: 'POST', headers: { 'content-type': 'application/json', authorization: token }, body: JSON.stringify({ query, variables }) }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  it('refuses bad documents and variables with 400 and Apollo’s codes; projects exactly the selection, aliases included', async () => {
    const sim = await hashnodeSimulator();
    try {
      expect(await post(sim.origin, 'query { me { id nope } }')).toEqual({ status: 400, body: { errors: [{ message: 'Cannot query field "nope" on type "MyUser".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] } });
      expect((await post(sim.origin, 'query { me { id ')).body).toMatchObject({ errors: [{ extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] });
      expect((await post(sim.origin, 'query { me { publications { edges { node { id } } } } }')).body).toMatchObject({
        errors: [{ message: 'Field "publications" argument "first" of type "Int!" is required, but it was not provided.' }],
      });
      expect((await post(sim.origin, 'query T($slug: String!) { tag(slug: $slug) { id } }')).body).toMatchObject({
        errors: [{ message: 'Variable "$slug" of required type "String!" was not provided.', extensions: { code: 'BAD_USER_INPUT' } }],
      });
      const missing = await post(sim.origin, 'mutation P($input: PublishPostInput!) { publishPost(input: $input) { post { id } } }', { input: { title: 'A title', publicationId: BLOG.id } });
      expect(missing).toMatchObject({ status: 400, body: { errors: [{ message: 'Variable "$input" got invalid value; Field "contentMarkdown" of required type "String!" was not provided.' }] } });
      expect((await post(sim.origin, 'query { me { publications(first: 5) { edges { node { id } } } } }', {}, 'bad')).body).toEqual({
        errors: [{ message: 'You must be logged in to view this information.', path: ['me'], extensions: { code: 'UNAUTHENTICATED' } }],
        data: { me: null },
      });
      expect((await post(sim.origin, '{ js: tag(slug: "javascript") { name slug } none: tag(slug: "zzz") { id } }')).body).toEqual({ data: { js: { name: 'JavaScript', slug: 'javascript' }, none: null } });
      expect(sim.posts).toHaveLength(0);
    } finally {
      await sim.close();
    }
  });
});

describe('hashnode: reading back', () => {
  it('findRecent: the posts of the post’s publication since the date, newest first, page after page; without one, every publication', async () => {
    await withHashnode({}, async (sim, ctx) => {
      const account = await connect(ctx);
      const since = new Date(Date.now() - 60 * 60_000);
      sim.addPost({ authorId: HN_USER.id, publicationId: BLOG.id, title: 'Too old to matter', publishedAt: new Date(Date.now() - 2 * 3_600_000).toISOString() });
      for (let i = 0; i < 22; i++) sim.addPost({ authorId: HN_USER.id, publicationId: BLOG.id, title: `Older post ${i}`, markdown: `old ${i}`, publishedAt: new Date(Date.now() - (30 + i) * 60_000).toISOString() });
      const news = sim.addPost({ authorId: HN_USER.id, publicationId: NEWS.id, title: 'In the news', markdown: 'news', publishedAt: new Date(Date.now() - 5 * 60_000).toISOString() });
      const mine = published(await publishWith(ctx, account, '<p>the <strong>newest</strong></p>', {}));
      const inBlog = await adapter.findRecent!({ since, limit: 100, settings: { publication: BLOG.id } }, withCreds(ctx, account));
      expect(inBlog).toHaveLength(23);
      expect(inBlog[0]).toMatchObject({ id: mine.id, url: mine.url, content: 'the **newest**' });
      expect(inBlog.some((p) => p.id === news.id)).toBe(false);
      expect(sim.operations.filter((o) => o.name === 'PublicationPosts').length).toBe(2);
      const everywhere = await adapter.findRecent!({ since, limit: 2 }, withCreds(ctx, account));
      expect(everywhere.map((p) => p.id)).toEqual([mine.id, news.id]);
    });
  });

  it('postAnalytics: views, reactions and responses of the post', async () => {
    await withHashnode({}, async (sim, ctx) => {
      const account = await connect(ctx);
      const r = published(await publishWith(ctx, account, '<p>counted</p>', {}));
      sim.setFigures(r.id, { views: 512, reactionCount: 17, responseCount: 4 });
      const today = new Date().toISOString().slice(0, 10);
      expect(await adapter.postAnalytics!(r.id, 7, withCreds(ctx, account))).toEqual([
        { label: 'Views', percentageChange: 0, data: [{ date: today, total: 512 }] },
        { label: 'Reactions', percentageChange: 0, data: [{ date: today, total: 17 }] },
        { label: 'Responses', percentageChange: 0, data: [{ date: today, total: 4 }] },
      ]);
      expect((await platformFailure(adapter.postAnalytics!('64f0c0ffee0000000000ffff', 7, withCreds(ctx, account)))).kind).toBe('rejected');
    });
  });

  it('tools: the account’s publications; the tags used on them', async () => {
    await withHashnode({}, async (sim, ctx) => {
      const account = await connect(ctx);
      expect(await adapter.runTool!('publications', {}, withCreds(ctx, account))).toEqual([
        { id: BLOG.id, name: BLOG.title, url: BLOG.url },
        { id: NEWS.id, name: NEWS.title, url: NEWS.url },
      ]);
      sim.addPost({ authorId: HN_USER.id, publicationId: BLOG.id, title: 'Tagged one', tagIds: [PG_TAG.id, JS_TAG.id] });
      sim.addPost({ authorId: HN_USER.id, publicationId: NEWS.id, title: 'Tagged two', tagIds: [JS_TAG.id] });
      sim.addPost({ authorId: OTHERS.members[0]!, publicationId: OTHERS.id, title: 'Not ours', tagIds: [NODE_TAG.id] });
      expect(await adapter.runTool!('tagsList', {}, withCreds(ctx, account))).toEqual([
        { value: 'javascript', label: 'JavaScript' },
        { value: 'postgresql', label: 'PostgreSQL' },
      ]);
      expect((await platformFailure(adapter.runTool!('nope', {}, withCreds(ctx, account)))).kind).toBe('unsupported');
    });
  });
});

describe('hashnode: errors', () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body });
  const errs = (code: string, message = 'm') => ({ errors: [{ message, extensions: { code } }], data: null });
  it('reads the errors array first, whatever the status, then the status', () => {
    expect(hashnodeError(res(200, { data: { me: { id: '1' } } }))).toBeUndefined();
    expect(hashnodeError(res(200, errs('UNAUTHENTICATED')))).toMatchObject({ kind: 'reconnect_required', details: { field: 'token' } });
    expect(hashnodeError(res(200, errs('BAD_USER_INPUT', 'Title must be at least 6 characters long')))).toMatchObject({ kind: 'rejected', message: 'Title must be at least 6 characters long' });
    expect(hashnodeError(res(200, errs('FORBIDDEN', 'Publication does not have an active Pro plan.')))!.kind).toBe('rejected');
    expect(hashnodeError(res(400, errs('GRAPHQL_VALIDATION_FAILED')))!.kind).toBe('rejected');
    expect(hashnodeError(res(200, errs('INTERNAL_SERVER_ERROR')))!.kind).toBe('transient');
    expect(hashnodeError(res(200, errs('TOO_MANY_REQUESTS')))).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 60 } });
    expect(hashnodeError(res(429, errs('TOO_MANY_REQUESTS'), { 'retry-after': '9' }))!.details.retryAfterSeconds).toBe(9);
    expect(hashnodeError(res(429, 'Too Many Requests'))!.kind).toBe('rate_limited');
    expect(hashnodeError(res(502, '<html>Bad gateway</html>'))!.kind).toBe('transient');
  });
});
