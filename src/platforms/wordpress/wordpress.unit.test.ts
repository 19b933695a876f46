import { createHash } from 'node:crypto';
import { openAsBlob, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import { testContext } from '../../../test/platform-contract.js';
import { createPlatformHttp, type PlatformHttpClient } from '../http.js';
import type { ConnectedAccount, OperationContext, PlatformAdapter, PublishMedia } from '../platform.js';
import { restRootFromLink, routeUrl } from './client.js';
import { wordpressError } from './errors.js';
import { createWordpressAdapter } from './index.js';
import type { WordpressSimulator, WordpressSimulatorOptions } from './wordpress.simulator.js';
import { APP_PASSWORD, credentialsInput, NEWS, originsFor, RELEASES, SITE, TAG_RUST, terms, wordpressSimulator } from './wordpress.testkit.js';

const adapter = createWordpressAdapter();

/** The contract's generic posts get the settings every WordPress post needs (a title and a type); nothing else changes. */
const asPosts: PlatformAdapter = {
  ...adapter,
  publish: (input, ctx) => adapter.publish({ ...input, settings: { title: 'Contract post', type: 'posts', ...input.settings } }, ctx),
};

// WordPress has no replies an app posts as the author (comments are another thing, and the
// metadata says `thread.supported: false`): only the thread case of the contract is skipped.
runSimulatorContract({ name: 'wordpress', adapter: asPosts, errorsIn200: false, start: () => wordpressSimulator(), origins: originsFor, connect: credentialsInput() });

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082', 'hex');
const JPEG = Buffer.from('ffd8ffe000104a46494600010100000100010000ffd9', 'hex');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const files: Record<string, { path: string; type: string }> = {};
beforeAll(() => {
  for (const [name, bytes, type] of [['png', PNG, 'image/png'], ['jpeg', JPEG, 'image/jpeg'], ['text', Buffer.from('not a picture'), 'image/png']] as const) {
    const path = join(tmpdir(), `tidings-wp-${process.pid}-${name}`);
    writeFileSync(path, bytes);
    files[name] = { path, type };
  }
});

interface Env {
  sim: WordpressSimulator;
  http: PlatformHttpClient;
  ctx: Omit<OperationContext, 'credentials'>;
  warnings: unknown[];
}

async function withSite(options: WordpressSimulatorOptions, fn: (env: Env) => Promise<void>) {
  const sim = await wordpressSimulator(options);
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 10_000 });
  const warnings: unknown[] = [];
  const base = testContext(http);
  const ctx = {
    ...base,
    logger: { ...base.logger, warn: (o: unknown, m?: string) => void warnings.push({ o, m }) },
    openMedia: (m: PublishMedia) => {
      const f = files[m.id] ?? files.png!;
      return openAsBlob(f.path, { type: f.type });
    },
  };
  try {
    await fn({ sim, http, ctx, warnings });
  } finally {
    await http.close();
    await sim.close();
  }
}
const withCreds = (ctx: Env['ctx'], account: ConnectedAccount): OperationContext => ({ ...ctx, credentials: account.credentials });
const picture = (id: string, over: Partial<PublishMedia> = {}): PublishMedia => ({ id, path: `https://tidings.example/media/${id}.png`, type: 'image', mimeType: 'image/png', size: 70, ...over });

describe('wordpress: REST root', () => {
  it('reads the root from the Link header, among other links', () => {
    const link = '<https://blog.example.com/wp-json/wp/v2/pages/2>; rel="alternate"; type="application/json", <https://blog.example.com/wp-json/>; rel="https://api.w.org/", <https://blog.example.com/?p=2>; rel=shortlink';
    expect(restRootFromLink(link, `${SITE}/`)).toBe('https://blog.example.com/wp-json/');
    expect(restRootFromLink('<https://b.example/index.php?rest_route=/>; rel="https://api.w.org/"', 'https://b.example/')).toBe('https://b.example/index.php?rest_route=/');
    expect(restRootFromLink('<https://b.example/x>; rel="alternate"', 'https://b.example/')).toBeUndefined();
  });

  it('builds routes under both forms of root', () => {
    expect(routeUrl('https://b.example/wp-json/', '/wp/v2/posts', { per_page: 100, page: 2 })).toBe('https://b.example/wp-json/wp/v2/posts?per_page=100&page=2');
    expect(routeUrl('https://b.example/blog/index.php/wp-json/', 'wp/v2/users/me')).toBe('https://b.example/blog/index.php/wp-json/wp/v2/users/me');
    expect(routeUrl('https://b.example/index.php?rest_route=/', '/wp/v2/posts', { per_page: 100, after: '2024-01-01T00:00:00' })).toBe(
      'https://b.example/index.php?rest_route=/wp/v2/posts&per_page=100&after=2024-01-01T00%3A00%3A00',
    );
    expect(routeUrl('https://b.example/?rest_route=/', '/wp/v2/media')).toBe('https://b.example/?rest_route=/wp/v2/media');
  });
});

describe('wordpress: connecting', () => {
  it('discovers the root, checks the application password (spaces or not) and keeps both', async () => {
    await withSite({}, async ({ sim, ctx }) => {
      const account = await adapter.connectWithCredentials!(credentialsInput({ siteUrl: `${SITE}/`, applicationPassword: APP_PASSWORD.replace(/ /g, '') }), ctx);
      expect(account).toMatchObject({ internalId: 'blog.example.com#7', name: 'Eddie Editor', profile: 'editor', expiresAt: null });
      expect(account.picture).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\/.+s=96/);
      expect(account.credentials).toMatchObject({ siteUrl: SITE, restRoot: `${SITE}/wp-json/`, username: 'editor', userId: 7 });
      expect(sim.log.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /', 'GET /wp-json/wp/v2/users/me?context=edit']);
      expect(sim.log[1]!.headers.authorization).toBe(`Basic ${Buffer.from(`editor:${APP_PASSWORD.replace(/ /g, '')}`).toString('base64')}`);
    });
  });

  it('works on a site without pretty permalinks (?rest_route=) and publishes there', async () => {
    await withSite({ permalinks: 'plain' }, async ({ sim, ctx }) => {
      const account = await adapter.connectWithCredentials!(credentialsInput(), ctx);
      expect(account.credentials.restRoot).toBe(`${SITE}/index.php?rest_route=/`);
      const r = await adapter.publish({ item: { content: '<p>Plain</p>', media: [picture('png')] }, settings: { title: 'Plain site', type: 'posts' }, idempotencyKey: 'k' }, withCreds(ctx, account));
      expect(r).toEqual({ status: 'published', id: String(sim.posts[0]!.id), url: `${SITE}/?p=${sim.posts[0]!.id}` });
      expect(sim.log.slice(-2).map((l) => `${l.method} ${l.path}`)).toEqual(['POST /index.php?rest_route=/wp/v2/media', 'POST /index.php?rest_route=/wp/v2/posts']);
    });
  });

  it('falls back to /wp-json/ when the front page has no Link header', async () => {
    await withSite({}, async ({ sim, ctx }) => {
      sim.inject({ path: /^\/$/, status: 200, body: '<html>cached page</html>', headers: { 'content-type': 'text/html' } });
      const account = await adapter.connectWithCredentials!(credentialsInput(), ctx);
      expect(account.credentials.restRoot).toBe(`${SITE}/wp-json/`);
    });
  });

  it('names the refused field: password, user name, site', async () => {
    await withSite({}, async ({ sim, ctx }) => {
      const wrongPassword = await platformFailure(adapter.connectWithCredentials!(credentialsInput({ applicationPassword: 'abcd EFGH 1234 ijkl MNOP 0000' }), ctx));
      expect({ kind: wrongPassword.kind, field: wrongPassword.details.field }).toEqual({ kind: 'rejected', field: 'applicationPassword' });
      expect(wrongPassword.message).toBe('WordPress refused the application password: The provided password is an invalid application password.');
      const unknownUser = await platformFailure(adapter.connectWithCredentials!(credentialsInput({ username: 'nobody' }), ctx));
      expect({ field: unknownUser.details.field, message: unknownUser.message }).toEqual({ field: 'username', message: 'WordPress does not know this user: Error: Unknown username. Check again or try your email address.' });
      const unknownEmail = await platformFailure(adapter.connectWithCredentials!(credentialsInput({ username: 'who@example.com' }), ctx));
      expect(unknownEmail.details.field).toBe('username');
      // A site that is not WordPress: /wp-json/ is a page of the site, not JSON.
      sim.inject({ path: /^\/$/, status: 200, body: '<html>shop</html>', headers: { 'content-type': 'text/html' } });
      sim.inject({ path: /wp-json/, status: 404, body: '<html>Not found</html>', headers: { 'content-type': 'text/html' } });
      const notWp = await platformFailure(adapter.connectWithCredentials!(credentialsInput(), ctx));
      expect({ field: notWp.details.field, kind: notWp.kind }).toEqual({ field: 'siteUrl', kind: 'rejected' });
      expect(notWp.message).toContain('does not answer like a WordPress site');
    });
  });

  it('a server that drops the Authorization header is told as such, on the password field', async () => {
    await withSite({ dropsAuthorization: true }, async ({ ctx }) => {
      const err = await platformFailure(adapter.connectWithCredentials!(credentialsInput(), ctx));
      expect(err.details.field).toBe('applicationPassword');
      expect(err.message).toMatch(/did not log in with this user name and application password.*Authorization header/);
    });
  });

  it('a site that treats a wrong password as a visitor (as real WordPress 6.1 did here): refused on the password field, and a revoked one asks for a reconnection', async () => {
    await withSite({ authFailures: 'anonymous' }, async ({ sim, ctx }) => {
      const wrong = await platformFailure(adapter.connectWithCredentials!(credentialsInput({ applicationPassword: 'nope nope nope nope nope nope' }), ctx));
      expect({ kind: wrong.kind, field: wrong.details.field, status: wrong.details.status }).toEqual({ kind: 'rejected', field: 'applicationPassword', status: 401 });
      const c = withCreds(ctx, await adapter.connectWithCredentials!(credentialsInput(), ctx));
      sim.users.find((u) => u.username === 'editor')!.appPasswords = [];
      const err = await platformFailure(adapter.publish({ item: { content: '<p>x</p>', media: [picture('png')] }, settings: { title: 'Gone', type: 'posts' }, idempotencyKey: 'k' }, c));
      expect({ kind: err.kind, code: err.details.platformCode, message: err.message }).toEqual({ kind: 'reconnect_required', code: 'rest_cannot_create', message: 'Sorry, you are not allowed to upload media as this user.' });
    });
  });

  it('an unreachable or private address is refused on the site field, with the guard on', async () => {
    const http = createPlatformHttp({ origins: new Map(), allowPrivateTargets: false, timeoutMs: 5_000 });
    try {
      const ctx = { ...testContext(http), openMedia: () => Promise.reject(new Error('none')) };
      const err = await platformFailure(adapter.connectWithCredentials!(credentialsInput({ siteUrl: 'http://127.0.0.1:9/' }), ctx));
      expect({ kind: err.kind, field: err.details.field }).toEqual({ kind: 'rejected', field: 'siteUrl' });
    } finally {
      await http.close();
    }
  });
});

describe('wordpress: publishing', () => {
  it('uploads the featured image first, then the post with title, status, categories and tags', async () => {
    await withSite({}, async ({ sim, ctx }) => {
      const account = await adapter.connectWithCredentials!(credentialsInput(), ctx);
      const r = await adapter.publish(
        {
          item: { content: '<p>Version <strong>1.2</strong> is out</p>', media: [picture('jpeg', { mimeType: 'image/jpeg', alt: 'Chart "before" & after' })] },
          settings: { __type: 'wordpress', title: 'Release 1.2', type: 'posts', status: 'publish', categories: [NEWS, RELEASES], tags: [TAG_RUST], main_image: { id: 'png', path: 'https://tidings.example/media/cover.png', alt: 'Cover' } },
          idempotencyKey: 'k',
        },
        withCreds(ctx, account),
      );
      const post = sim.posts[0]!;
      expect(r).toEqual({ status: 'published', id: String(post.id), url: `${SITE}/release-1-2/` });
      expect(post).toMatchObject({ title: 'Release 1.2', status: 'publish', categories: [NEWS, RELEASES], tags: [TAG_RUST], author: 7 });
      expect(sim.mediaOf(post)).toEqual({ featured: sha(PNG), inContent: [sha(JPEG)] });
      const [cover, inline] = sim.media;
      expect(cover).toMatchObject({ filename: 'cover.png', mimeType: 'image/png', altText: 'Cover' });
      expect(inline).toMatchObject({ filename: 'jpeg.jpg', mimeType: 'image/jpeg', altText: 'Chart "before" & after' });
      expect(post.featuredMedia).toBe(cover!.id);
      expect(post.content).toContain(`<img src="${inline!.sourceUrl}" alt="Chart &quot;before&quot; &amp; after" class="wp-image-${inline!.id}"/>`);
      const upload = sim.log.find((l) => l.method === 'POST' && l.path.startsWith('/wp-json/wp/v2/media'))!;
      expect({ type: upload.headers['content-type'], disposition: upload.headers['content-disposition'] }).toEqual({ type: 'image/png', disposition: 'attachment; filename="cover.png"' });
      expect(sim.log.filter((l) => l.method === 'POST').map((l) => l.path.split('?')[0])).toEqual(['/wp-json/wp/v2/media', '/wp-json/wp/v2/media', '/wp-json/wp/v2/posts']);
    });
  });

  it('pages, drafts and scheduled posts', async () => {
    await withSite({}, async ({ sim, ctx }) => {
      const c = withCreds(ctx, await adapter.connectWithCredentials!(credentialsInput(), ctx));
      const page = await adapter.publish({ item: { content: '<p>About us</p>', media: [] }, settings: { title: 'About', type: 'page' }, idempotencyKey: 'a' }, c);
      expect(sim.posts.at(-1)).toMatchObject({ type: 'page', status: 'publish', categories: [] });
      expect(page).toMatchObject({ url: `${SITE}/about/` });
      const draft = await adapter.publish({ item: { content: '<p>Soon</p>', media: [] }, settings: { title: 'Draft one', type: 'posts', status: 'draft' }, idempotencyKey: 'b' }, c);
      expect(draft).toMatchObject({ url: `${SITE}/?p=${sim.posts.at(-1)!.id}` });
      const at = new Date(Date.now() + 3 * 86_400_000).toISOString();
      await adapter.publish({ item: { content: '<p>Later</p>', media: [] }, settings: { title: 'Scheduled', type: 'posts', status: 'future', date: at }, idempotencyKey: 'c' }, c);
      expect(sim.posts.at(-1)).toMatchObject({ status: 'future', dateGmt: `${at.slice(0, 19)}.000Z` });
    });
  });

  it('an unknown category is dropped by WordPress without a word: the adapter logs it', async () => {
    await withSite({}, async ({ sim, ctx, warnings }) => {
      const c = withCreds(ctx, await adapter.connectWithCredentials!(credentialsInput(), ctx));
      await adapter.publish({ item: { content: '<p>x</p>', media: [] }, settings: { title: 'Lost category', type: 'posts', categories: [NEWS, 999] }, idempotencyKey: 'k' }, c);
      expect(sim.posts[0]!.categories).toEqual([NEWS]);
      expect(warnings).toMatchObject([{ o: { missing: [999] } }]);
    });
  });

  it('refusals keep WordPress’s message: a contributor cannot publish, a file that is not a picture, a bad post type', async () => {
    await withSite({}, async ({ sim, ctx }) => {
      const contrib = withCreds(ctx, await adapter.connectWithCredentials!(credentialsInput({ username: 'contrib', applicationPassword: 'cccc CCCC cccc CCCC cccc CCCC' }), ctx));
      const cannot = await platformFailure(adapter.publish({ item: { content: '<p>x</p>', media: [] }, settings: { title: 'Nope', type: 'posts' }, idempotencyKey: 'k' }, contrib));
      expect({ kind: cannot.kind, message: cannot.message, code: cannot.details.platformCode }).toEqual({ kind: 'rejected', message: 'Sorry, you are not allowed to publish posts in this post type.', code: 'rest_cannot_publish' });
      const pending = await adapter.publish({ item: { content: '<p>x</p>', media: [] }, settings: { title: 'For review', type: 'posts', status: 'pending' }, idempotencyKey: 'k' }, contrib);
      expect(pending.status).toBe('published');

      const editor = withCreds(ctx, await adapter.connectWithCredentials!(credentialsInput(), ctx));
      const notPicture = await platformFailure(adapter.publish({ item: { content: '<p>x</p>', media: [picture('text')] }, settings: { title: 'Bad file', type: 'posts' }, idempotencyKey: 'k' }, editor));
      expect({ kind: notPicture.kind, status: notPicture.details.status, message: notPicture.message }).toEqual({ kind: 'rejected', status: 500, message: 'Sorry, you are not allowed to upload this file type.' });
      const noType = await platformFailure(adapter.publish({ item: { content: '<p>x</p>', media: [] }, settings: { title: 'Odd type', type: 'recipes' }, idempotencyKey: 'k' }, editor));
      expect({ kind: noType.kind, code: noType.details.platformCode }).toEqual({ kind: 'rejected', code: 'rest_no_route' });
      expect(sim.posts.map((p) => p.title)).toEqual(['For review']);
    });
  });

  it('a revoked application password asks for a reconnection', async () => {
    await withSite({}, async ({ sim, ctx }) => {
      const c = withCreds(ctx, await adapter.connectWithCredentials!(credentialsInput(), ctx));
      sim.users.find((u) => u.username === 'editor')!.appPasswords = [];
      const err = await platformFailure(adapter.publish({ item: { content: '<p>x</p>', media: [] }, settings: { title: 'Gone', type: 'posts' }, idempotencyKey: 'k' }, c));
      expect({ kind: err.kind, code: err.details.platformCode }).toEqual({ kind: 'reconnect_required', code: 'incorrect_password' });
    });
  });
});

describe('wordpress: tools and findRecent', () => {
  it('lists post types, and every page of categories and tags', async () => {
    await withSite({ terms: terms(230) }, async ({ sim, ctx }) => {
      const c = withCreds(ctx, await adapter.connectWithCredentials!(credentialsInput(), ctx));
      expect(await adapter.runTool!('postTypes', {}, c)).toEqual([{ id: 'posts', name: 'Posts' }, { id: 'pages', name: 'Pages' }]);
      expect(await adapter.runTool!('categoriesList', {}, c)).toEqual([
        { id: NEWS, name: 'News & Events', parent: 0 },
        { id: RELEASES, name: 'Releases', parent: NEWS },
        { id: 1, name: 'Uncategorized', parent: 0 },
      ]);
      const tags = (await adapter.runTool!('tags', {}, c)) as { id: number; name: string }[];
      expect(tags).toHaveLength(231);
      expect(new Set(tags.map((t) => t.id)).size).toBe(231);
      expect(sim.log.filter((l) => l.path.startsWith('/wp-json/wp/v2/tags')).map((l) => new URL(l.path, 'http://x').searchParams.get('page'))).toEqual(['1', '2', '3']);
      expect(await adapter.runTool!('tagsList', {}, c)).toEqual(tags);
    });
  });

  it('finds the user’s recent posts of the post’s type, in any status, newest first', async () => {
    await withSite({}, async ({ sim, ctx }) => {
      const c = withCreds(ctx, await adapter.connectWithCredentials!(credentialsInput(), ctx));
      const base = Date.now();
      sim.setNow(base - 3 * 3_600_000);
      await adapter.publish({ item: { content: '<p>Old one</p>', media: [] }, settings: { title: 'Old', type: 'posts' }, idempotencyKey: 'a' }, c);
      sim.setNow(base - 3_600_000);
      const draft = await adapter.publish({ item: { content: '<p>A <em>draft</em></p>', media: [] }, settings: { title: 'Draft', type: 'posts', status: 'draft' }, idempotencyKey: 'b' }, c);
      sim.setNow(base);
      const latest = await adapter.publish({ item: { content: '<p>Latest</p>', media: [] }, settings: { title: 'Latest', type: 'posts' }, idempotencyKey: 'c' }, c);
      const page = await adapter.publish({ item: { content: '<p>A page</p>', media: [] }, settings: { title: 'Page', type: 'pages' }, idempotencyKey: 'd' }, c);
      const found = await adapter.findRecent!({ since: new Date(base - 2 * 3_600_000), limit: 10, settings: { type: 'posts' } }, c);
      expect(found.map((f) => f.id)).toEqual([(latest as { id: string }).id, (draft as { id: string }).id]);
      expect(found[1]).toMatchObject({ content: 'A draft', createdAt: new Date(base - 3_600_000).toISOString().replace(/\.\d{3}Z$/, '.000Z') });
      const pages = await adapter.findRecent!({ since: new Date(base - 2 * 3_600_000), limit: 10, settings: { type: 'page' } }, c);
      expect(pages.map((f) => f.id)).toEqual([(page as { id: string }).id]);
      const list = sim.log.find((l) => l.method === 'GET' && l.path.startsWith('/wp-json/wp/v2/posts?'))!;
      expect(Object.fromEntries(new URL(list.path, 'http://x').searchParams)).toMatchObject({ author: '7', context: 'edit', status: 'any', orderby: 'date', order: 'desc' });
    });
  });
});

describe('wordpress: validate and errors', () => {
  it('names the settings WordPress cannot take', () => {
    expect(adapter.validate({ settings: { title: 'T', type: 'wp/v2/posts' }, items: [] })).toMatchObject([{ path: 'settings.type' }]);
    expect(adapter.validate({ settings: { title: 'T', type: 'pages', categories: [3], tags: [] }, items: [] })).toMatchObject([{ path: 'settings.categories', code: 'unsupported' }]);
    expect(adapter.validate({ settings: { title: 'T', type: 'posts', categories: [3] }, items: [] })).toEqual([]);
  });

  it('classifies by code before status', () => {
    const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body });
    const kind = (r: ReturnType<typeof res>) => wordpressError(r)?.kind;
    expect(kind(res(500, { code: 'rest_upload_sideload_error', message: 'Sorry, you are not allowed to upload this file type.', data: { status: 500 } }))).toBe('rejected');
    expect(kind(res(403, { code: 'rest_cannot_create', message: 'Sorry, you are not allowed to create posts as this user.', data: { status: 403 } }))).toBe('rejected');
    // As 401 WordPress saw an anonymous request: the password no longer logs in.
    expect(kind(res(401, { code: 'rest_cannot_create', message: 'Sorry, you are not allowed to create posts as this user.', data: { status: 401 } }))).toBe('reconnect_required');
    expect(kind(res(401, { code: 'incorrect_password', message: 'x', data: { status: 401 } }))).toBe('reconnect_required');
    expect(kind(res(401, '<html>Unauthorized</html>'))).toBe('reconnect_required');
    expect(kind(res(502, '<html>Bad gateway</html>'))).toBe('transient');
    const limited = wordpressError(res(429, '<html>slow down</html>'))!;
    expect({ kind: limited.kind, wait: limited.details.retryAfterSeconds }).toEqual({ kind: 'rate_limited', wait: 60 });
    expect(wordpressError(res(429, {}, { 'retry-after': '7' }))!.details.retryAfterSeconds).toBe(7);
    const invalid = wordpressError(res(400, { code: 'rest_invalid_param', message: 'Invalid parameter(s): categories', data: { status: 400, params: { categories: 'categories[0] is not of type integer.' } } }))!;
    expect(invalid.message).toBe('Invalid parameter(s): categories (categories[0] is not of type integer.)');
  });
});
