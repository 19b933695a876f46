import { describe, expect, it } from 'vitest';
import { connectViaOAuth, runPlatformContract } from '../../../test/platform-contract.js';
import type { OperationContext, PlatformError, PublishItem } from '../platform.js';
import { parseRateLimitText, redditError } from './errors.js';
import { createRedditAdapter, normalizeSubreddit, titleFromContent, toRedditMarkdown } from './index.js';
import { APP, entry, image, lookupIn, MP4, originsFor, PNG, REDIRECT, redditSimulator, rewriteFor, sha, video, withReddit } from './reddit.testkit.js';

const adapter = createRedditAdapter({ app: APP });

runPlatformContract({
  name: 'reddit',
  adapter,
  errorsIn200: true,
  async setup() {
    const sim = await redditSimulator();
    return {
      origins: originsFor(sim),
      injectKind: (k) => sim.injectKind(k),
      connect: (ctx) => connectViaOAuth(adapter, ctx, rewriteFor(sim), { redirectUri: REDIRECT }),
      lookup: lookupIn(sim),
      expireToken: () => sim.expireAccessTokens(),
      close: () => sim.close(),
    };
  },
});

describe('reddit specifics', () => {
  const fails = (p: Promise<unknown>) => p.then(() => expect.fail('expected a PlatformError'), (e: unknown) => e as PlatformError);

  it('connects with a permanent grant and the profile, and asks with the descriptive User-Agent', async () => {
    await withReddit(adapter, async (sim, _ctx, account) => {
      expect(account).toMatchObject({ internalId: '8xwlg', name: 'tidings_tester', profile: 'u/tidings_tester' });
      expect(account.picture).toMatch(/^https:\/\/styles\.redditmedia\.com\/.*\?width=256&height=256&s=abc$/);
      expect(account.credentials).toMatchObject({ username: 'tidings_tester', userId: '8xwlg', refreshToken: expect.any(String) });
      expect(account.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 3500_000);
      const token = sim.log.find((r) => r.path === '/api/v1/access_token')!;
      expect(token.headers.authorization).toBe(`Basic ${Buffer.from(`${APP.clientId}:${APP.clientSecret}`).toString('base64')}`);
      expect(token.headers['user-agent']).toMatch(/^server:tidings:v\d/);
      expect(sim.log.find((r) => r.path.startsWith('/api/v1/me'))!.headers['user-agent']).toMatch(/^server:tidings:v\d/);
    });
  });

  it('builds the authorisation URL with duration=permanent, and refuses to start when Reddit is not configured', async () => {
    const { url } = await adapter.beginConnect!({ state: 's1', redirectUri: REDIRECT }, {} as OperationContext);
    const u = new URL(url);
    expect(`${u.origin}${u.pathname}`).toBe('https://www.reddit.com/api/v1/authorize');
    expect(Object.fromEntries(u.searchParams)).toMatchObject({ client_id: APP.clientId, response_type: 'code', state: 's1', duration: 'permanent', scope: 'read identity submit flair history' });
    const err = await fails(createRedditAdapter({}).beginConnect!({ state: 's', redirectUri: REDIRECT }, {} as OperationContext));
    expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'unsupported', message: 'Reddit is not configured' });
  });

  it('posts one submission per subreddit with its own title and flair; the first is the result', async () => {
    await withReddit(adapter, async (sim, ctx) => {
      const settings = { subreddit: [entry({}), entry({ subreddit: 'r/node', title: 'Node show-off', is_flair_required: true, flair: { id: 'f-show', name: 'Show-off' } })] };
      const r = await adapter.publish({ item: { content: '<p>A <strong>typed</strong> scheduler</p><p>More soon</p>', media: [] }, settings, idempotencyKey: 'm1' }, ctx);
      expect(sim.state.submissions.map((s) => ({ sr: s.sr, title: s.title, kind: s.kind, flair: s.flairText ?? null }))).toEqual([
        { sr: 'typescript', title: 'Typed schedulers', kind: 'self', flair: null },
        { sr: 'node', title: 'Node show-off', kind: 'self', flair: 'Show-off' },
      ]);
      const first = sim.state.submissions[0]!;
      expect(first.text).toBe('A **typed** scheduler\n\nMore soon');
      expect(r).toEqual({ status: 'published', id: first.name, url: `https://www.reddit.com/r/typescript/comments/${first.id}/typed_schedulers/` });
      const submit = sim.log.find((l) => l.path === '/api/submit')!.body as Record<string, string>;
      expect(submit).toMatchObject({ api_type: 'json', sr: 'typescript', kind: 'self', resubmit: 'true' });
    });
  });

  it('keeps the first post when a later subreddit refuses, and says so in the log', async () => {
    await withReddit(adapter, async (sim, ctx, _account, warnings) => {
      const settings = { subreddit: [entry({}), entry({ subreddit: '/r/node', title: 'No flair here' })] };
      const r = await adapter.publish({ item: { content: '<p>text</p>', media: [] }, settings, idempotencyKey: 'm2' }, ctx);
      expect(r.status).toBe('published');
      expect(sim.state.submissions).toHaveLength(1);
      expect(JSON.stringify(warnings)).toContain('Your post must contain post flair.');
      // The same refusal on the first subreddit is thrown, with Reddit's code.
      const err = await fails(adapter.publish({ item: { content: '<p>text</p>', media: [] }, settings: { subreddit: [settings.subreddit[1]] }, idempotencyKey: 'm3' }, ctx));
      expect({ kind: err.kind, code: err.details.platformCode }).toEqual({ kind: 'rejected', code: 'SUBMIT_VALIDATION_FLAIR_REQUIRED' });
      expect(err.message).toContain('Your post must contain post flair.');
    });
  });

  it('posts a link, and reports a subreddit that takes no text posts', async () => {
    await withReddit(adapter, async (sim, ctx) => {
      const r = await adapter.publish(
        { item: { content: '<p>ignored for links</p>', media: [] }, settings: { subreddit: [entry({ subreddit: 'linksonly', type: 'link', url: 'https://example.com/a?b=1' })] }, idempotencyKey: 'l1' },
        ctx,
      );
      expect(r.status).toBe('published');
      expect(sim.state.submissions[0]).toMatchObject({ kind: 'link', url: 'https://example.com/a?b=1', text: '' });
      const err = await fails(adapter.publish({ item: { content: '<p>words</p>', media: [] }, settings: { subreddit: [entry({ subreddit: 'linksonly' })] }, idempotencyKey: 'l2' }, ctx));
      expect({ kind: err.kind, code: err.details.platformCode }).toEqual({ kind: 'rejected', code: 'NO_SELFS' });
    });
  });

  it('uploads an image through the media lease, answers pending while Reddit has no id, then finds the post', async () => {
    await withReddit(adapter, async (sim, ctx) => {
      sim.state.mediaListingDelay = 2;
      const settings = { subreddit: [entry({ type: 'image', title: 'A cat picture' })] };
      const r = await adapter.publish({ item: { content: '<p>caption</p>', media: [image] }, settings, idempotencyKey: 'i1' }, ctx);
      expect(r.status).toBe('pending');
      if (r.status !== 'pending') return;
      // The bytes went to the S3 form upload, the file after all the lease's fields.
      const post = sim.state.submissions[0]!;
      expect(post).toMatchObject({ kind: 'image', sr: 'typescript', mediaSha256: [sha(PNG)] });
      expect(post.url).toMatch(/^https:\/\/reddit-uploaded-media\.s3-accelerate\.amazonaws\.com\/rte_images%2F/);
      expect([...sim.state.media.values()][0]).toMatchObject({ filepath: 'cat.png', mimetype: 'image/png' });
      expect(await adapter.checkPublish!(r.token, ctx)).toEqual({ status: 'pending', token: r.token });
      const done = await adapter.checkPublish!(r.token, ctx);
      expect(done).toEqual({ status: 'published', id: post.name, url: `https://www.reddit.com${post.permalink}` });
      // One look right after the submit, then one per check.
      expect(sim.log.filter((l) => l.path.startsWith('/user/tidings_tester/submitted')).length).toBe(3);
    });
  });

  it('answers pending, not an error, when the look for a made image post fails', async () => {
    await withReddit(adapter, async (sim, ctx) => {
      sim.inject({ path: /^\/user\//, status: 503, body: { message: 'Service Unavailable', error: 503 } });
      const r = await adapter.publish({ item: { content: '<p>Cat</p>', media: [image] }, settings: {}, idempotencyKey: 'i2' }, ctx);
      expect(r.status).toBe('pending');
      if (r.status !== 'pending') return;
      expect(await adapter.checkPublish!(r.token, ctx)).toMatchObject({ status: 'published', id: sim.state.submissions[0]!.name });
      expect(sim.state.submissions[0]).toMatchObject({ sr: 'u_tidings_tester', title: 'Cat', kind: 'image' });
    });
  });

  it('posts a video with a poster image, and checks the media a type needs', async () => {
    await withReddit(adapter, async (sim, ctx) => {
      const r = await adapter.publish({ item: { content: '', media: [video] }, settings: { subreddit: [entry({ type: 'media', title: 'A clip' })] }, idempotencyKey: 'v1' }, ctx);
      expect(r.status).toBe('published');
      const post = sim.state.submissions[0]!;
      expect(post).toMatchObject({ kind: 'video', mediaSha256: [sha(MP4)] });
      expect(post.posterSha256).toEqual(expect.any(String));
      expect([...sim.state.media.values()].map((m) => m.filepath)).toEqual(['vid-1.mp4', 'poster.png']);
    });
    const draft = (type: string, media: PublishItem['media']) => ({ settings: { subreddit: [entry({ type })] }, items: [{ content: '<p>x</p>', media }] });
    expect(adapter.validate(draft('image', []))).toEqual([expect.objectContaining({ path: 'value.0.image', code: 'media_count' })]);
    expect(adapter.validate(draft('video', [image]))).toEqual([expect.objectContaining({ path: 'value.0.image' })]);
    expect(adapter.validate(draft('image', [image]))).toEqual([]);
    expect(adapter.validate(draft('media', [video]))).toEqual([]);
    expect(adapter.validate(draft('self', [image]))).toEqual([expect.objectContaining({ path: 'value.0.image', code: 'media_unused' })]);
    expect(adapter.validate(draft('poll', []))).toEqual([expect.objectContaining({ path: 'settings.subreddit.0.value.type' })]);
    expect(adapter.validate({ settings: {}, items: [{ content: '<p> </p>', media: [] }] })).toEqual([expect.objectContaining({ path: 'value.0.content' })]);
  });

  it("classifies Reddit's RATELIMIT throttle with the wait its text gives", async () => {
    await withReddit(adapter, async (sim, ctx) => {
      sim.state.throttleMinutes = 9;
      const err = await fails(adapter.publish({ item: { content: '<p>again</p>', media: [] }, settings: {}, idempotencyKey: 'r1' }, ctx));
      expect({ kind: err.kind, wait: err.details.retryAfterSeconds, code: err.details.platformCode }).toEqual({ kind: 'rate_limited', wait: 540, code: 'RATELIMIT' });
    });
    expect(parseRateLimitText('you are doing that too much. try again in 5 minutes.')).toBe(300);
    expect(parseRateLimitText('you are doing that too much. try again in 9 seconds.')).toBe(9);
    expect(parseRateLimitText('Take a break for 1 hour before trying again.')).toBe(3600);
    expect(parseRateLimitText('you are doing that too much.')).toBeUndefined();
  });

  it('comments on a post and replies to a comment', async () => {
    await withReddit(adapter, async (sim, ctx) => {
      const post = await adapter.publish({ item: { content: '<p>root</p>', media: [] }, settings: { subreddit: [entry({})] }, idempotencyKey: 'c0' }, ctx);
      if (post.status !== 'published') throw new Error('expected published');
      const c1 = await adapter.publish({ item: { content: '<p>first comment</p>', media: [] }, settings: {}, replyTo: { id: post.id, rootId: post.id }, idempotencyKey: 'c1' }, ctx);
      if (c1.status !== 'published') throw new Error('expected published');
      expect(c1.id).toMatch(/^t1_/);
      expect(c1.url).toMatch(new RegExp(`^https://www\\.reddit\\.com/r/typescript/comments/${post.id.slice(3)}/typed_schedulers/${c1.id.slice(3)}/$`));
      const c2 = await adapter.publish({ item: { content: '<p>nested</p>', media: [] }, settings: {}, replyTo: { id: c1.id, rootId: post.id }, idempotencyKey: 'c2' }, ctx);
      if (c2.status !== 'published') throw new Error('expected published');
      expect(sim.find(c2.id).comment).toMatchObject({ parent: c1.id, linkId: post.id, text: 'nested' });
      // Bare ids (no fullname prefix) are understood as well.
      const c3 = await adapter.publish({ item: { content: '<p>bare</p>', media: [] }, settings: {}, replyTo: { id: c1.id.slice(3), rootId: post.id.slice(3) }, idempotencyKey: 'c3' }, ctx);
      if (c3.status !== 'published') throw new Error('expected published');
      expect(sim.find(c3.id).comment?.parent).toBe(c1.id);
    });
  });

  it('searches subreddits and reads their posting rules and flairs', async () => {
    await withReddit(adapter, async (_sim, ctx) => {
      const found = (await adapter.runTool!('subreddits', { word: 'type' }, ctx)) as { title: string; name: string; id: string }[];
      expect(found).toEqual([{ title: 'TypeScript programming', name: '/r/typescript', id: expect.any(String) }]);
      expect(await adapter.runTool!('restrictions', { subreddit: '/r/node' }, ctx)).toEqual({
        subreddit: '/r/node',
        allow: ['self', 'link', 'media'],
        allow_images: true,
        is_flair_required: true,
        flairs: [
          { id: 'f-show', name: 'Show-off' },
          { id: 'f-help', name: 'Help' },
        ],
      });
      expect(await adapter.runTool!('restrictions', { subreddit: 'https://www.reddit.com/r/linksonly/' }, ctx)).toEqual({
        subreddit: '/r/linksonly',
        allow: ['link', 'media'],
        allow_images: false,
        is_flair_required: false,
        flairs: [],
      });
      const hidden = await fails(adapter.runTool!('restrictions', { subreddit: '/r/typesecret' }, ctx));
      expect({ kind: hidden.kind, status: hidden.details.status, code: hidden.details.platformCode }).toEqual({ kind: 'rejected', status: 403, code: 'private' });
      expect((await fails(adapter.runTool!('restrictions', { subreddit: '/r/nosuchplace' }, ctx))).kind).toBe('rejected');
      expect((await fails(adapter.runTool!('restrictions', {}, ctx))).kind).toBe('rejected');
      expect((await fails(adapter.runTool!('boards', {}, ctx))).kind).toBe('unsupported');
    });
  });

  it('refreshes the access token, and needs a reconnect once the refresh token is revoked', async () => {
    await withReddit(adapter, async (sim, ctx) => {
      sim.expireAccessTokens();
      expect((await fails(adapter.publish({ item: { content: '<p>x</p>', media: [] }, settings: {}, idempotencyKey: 'a1' }, ctx))).kind).toBe('auth_expired');
      const refreshed = await adapter.refresh!(ctx);
      expect(refreshed.credentials.refreshToken).toBe(ctx.credentials.refreshToken);
      expect(refreshed.credentials.accessToken).not.toBe(ctx.credentials.accessToken);
      sim.revokeRefreshTokens();
      const err = await fails(adapter.refresh!({ ...ctx, credentials: refreshed.credentials }));
      expect({ kind: err.kind, code: err.details.platformCode }).toEqual({ kind: 'reconnect_required', code: 'invalid_grant' });
    });
  });

  it('lists recent submissions for reconciliation', async () => {
    await withReddit(adapter, async (_sim, ctx) => {
      const before = new Date(Date.now() - 5000);
      const r = await adapter.publish({ item: { content: '<p>Recent one</p><p>body</p>', media: [] }, settings: {}, idempotencyKey: 'f1' }, ctx);
      if (r.status !== 'published') throw new Error('expected published');
      const recent = await adapter.findRecent!({ since: before, limit: 10 }, ctx);
      expect(recent).toEqual([{ id: r.id, url: r.url, content: 'Recent one\n\nRecent one\n\nbody', createdAt: expect.any(String) }]);
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 10 }, ctx)).toEqual([]);
    });
  });

  it("lists only the user's own comments under the thread's submission, across pages, for reconciling a thread item", async () => {
    await withReddit(adapter, async (sim, ctx) => {
      const since = new Date(Date.now() - 5000);
      const root = await adapter.publish({ item: { content: '<p>root</p>', media: [] }, settings: { subreddit: [entry({})] }, idempotencyKey: 't0' }, ctx);
      const elsewhere = await adapter.publish({ item: { content: '<p>another post</p>', media: [] }, settings: { subreddit: [entry({})] }, idempotencyKey: 't1' }, ctx);
      if (root.status !== 'published' || elsewhere.status !== 'published') throw new Error('expected published');
      const c1 = await adapter.publish({ item: { content: '<p>Second &amp; <em>more</em></p>', media: [] }, settings: {}, replyTo: { id: root.id, rootId: root.id }, idempotencyKey: 't2' }, ctx);
      if (c1.status !== 'published') throw new Error('expected published');
      const c2 = await adapter.publish({ item: { content: '<p>Third</p>', media: [] }, settings: {}, replyTo: { id: c1.id, rootId: root.id }, idempotencyKey: 't3' }, ctx);
      if (c2.status !== 'published') throw new Error('expected published');
      // Someone else answers in the same thread with the same text: not ours, so never a match.
      sim.addUser({ id: 'o7her', name: 'someone_else' });
      sim.addComment(c1.id, 'Third', 'o7her');
      // Newer comments of ours elsewhere push the thread's comments onto the second page.
      for (let i = 0; i < 120; i++) sim.addComment(elsewhere.id, `filler ${i}`, '8xwlg');

      const from = sim.log.length;
      const found = await adapter.findRecent!({ since, limit: 50, replyTo: { id: c1.id, rootId: root.id } }, ctx);
      expect(found).toEqual([
        { id: c2.id, url: c2.url, content: 'Third', createdAt: expect.any(String) },
        { id: c1.id, url: c1.url, content: 'Second & *more*', createdAt: expect.any(String) },
      ]);
      const pages = sim.log.slice(from).map((r) => new URL(r.path, sim.origin));
      expect(pages.map((u) => u.pathname)).toEqual(['/user/tidings_tester/comments', '/user/tidings_tester/comments']);
      expect(Object.fromEntries(pages[0]!.searchParams)).toEqual({ sort: 'new', limit: '100', raw_json: '1' });
      expect(pages[1]!.searchParams.get('after')).toMatch(/^t1_/);
      // A bare root id is the same submission; nothing is newer than the future.
      expect((await adapter.findRecent!({ since, limit: 1, replyTo: { id: c1.id, rootId: root.id.slice(3) } }, ctx)).map((p) => p.id)).toEqual([c2.id]);
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 50, replyTo: { id: c1.id, rootId: root.id } }, ctx)).toEqual([]);
    });
  });

  it('is refused by Reddit with a generic User-Agent', async () => {
    await withReddit(adapter, async (_sim, ctx) => {
      const generic = createRedditAdapter({ app: APP, userAgent: 'node' });
      const err = await fails(generic.publish({ item: { content: '<p>x</p>', media: [] }, settings: {}, idempotencyKey: 'u1' }, ctx));
      expect(err.kind).toBe('rate_limited');
      expect(err.message).not.toContain('<');
    });
  });
});

describe('reddit helpers', () => {
  it('normalises subreddit names', () => {
    expect(['/r/typescript', 'r/typescript/', 'typescript', 'https://www.reddit.com/r/typescript/about', ' /r/typescript '].map(normalizeSubreddit)).toEqual(Array(5).fill('typescript'));
    expect(normalizeSubreddit('/u/someone')).toBe('u_someone');
    expect(normalizeSubreddit('https://old.reddit.com/user/someone/')).toBe('u_someone');
  });

  it('turns stored HTML into Reddit markdown and a title', () => {
    expect(toRedditMarkdown('<p>Hi <em>there</em> <a href="https://x.test/a">link</a></p><p>line one<br>line two</p><ul><li>a</li><li>b</li></ul>')).toBe(
      'Hi *there* [link](https://x.test/a)\n\nline one  \nline two\n\n- a\n- b',
    );
    expect(titleFromContent('<p></p><p>First &amp; best</p><p>second</p>')).toBe('First & best');
    expect(titleFromContent(`<p>${'a'.repeat(400)}</p>`)).toHaveLength(300);
  });

  it('classifies status errors: missing scope, banned, server, HTML pages', () => {
    const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body });
    expect(redditError(res(403, { message: 'Forbidden', error: 403 }, { 'www-authenticate': 'Bearer realm="reddit", error="insufficient_scope"' }))?.kind).toBe('reconnect_required');
    expect(redditError(res(403, { reason: 'banned', message: 'Forbidden', error: 403 }))).toMatchObject({ kind: 'rejected', details: { platformCode: 'banned' } });
    expect(redditError(res(502, '<html><body>bad gateway</body></html>'))).toMatchObject({ kind: 'transient', message: 'Reddit: HTTP 502' });
    expect(redditError(res(200, { json: { errors: [], data: { id: 'x' } } }))).toBeUndefined();
    expect(redditError(res(200, { json: { errors: [['USER_REQUIRED', 'Please log in to do that.', null]] } }))?.kind).toBe('auth_expired');
  });
});
