import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectViaOAuth, runPlatformContract, testContext } from '../../../test/platform-contract.js';
import { createPlatformHttp, type PlatformHttpClient } from '../http.js';
import { PlatformError, type ConnectedAccount, type OperationContext, type PlatformHttp, type PublishItem } from '../platform.js';
import { xError } from './errors.js';
import { CHUNK_BYTES } from './client.js';
import { createXAdapter, tweetBody } from './index.js';
import type { XSimulator } from './x.simulator.js';
import { originsFor, USER, X_APP, xSimulator } from './x.testkit.js';

const adapter = createXAdapter({ app: X_APP });
runPlatformContract({
  name: 'x',
  adapter,
  errorsIn200: false,
  async setup() {
    const sim = await xSimulator();
    const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
    return {
      origins: originsFor(sim),
      injectKind: (k) => sim.injectKind(k),
      connect: (ctx) => connectViaOAuth(adapter, ctx, (url) => http.rewriteUrl(url)),
      lookup: (id) => {
        const t = sim.tweets.find((x) => x.id === id);
        return t && { text: t.text, replyTo: t.replyTo, mediaSha256: t.mediaSha256 };
      },
      expireToken: () => sim.expireAccessTokens(),
      close: async () => {
        await http.close();
        await sim.close();
      },
    };
  },
});

describe('x specifics', () => {
  let sim: XSimulator;
  let http: PlatformHttpClient;
  let account: ConnectedAccount;
  let files: Map<string, Buffer>;
  let dir: string;

  const baseCtx = (over: Partial<OperationContext> = {}): Omit<OperationContext, 'credentials'> => ({
    ...testContext(http),
    // File-backed, as in production: chunks are slices of the file, never the whole of it.
    openMedia: (m) => openAsBlob(join(dir, m.id), { type: m.mimeType }),
    ...over,
  });
  const ctx = (over: Partial<OperationContext> = {}): OperationContext => ({ ...baseCtx(over), credentials: account.credentials, ...over });
  const media = (id: string, bytes: Buffer, type: 'image' | 'video', mimeType: string, alt?: string): PublishItem['media'][number] => {
    files.set(id, bytes);
    writeFileSync(join(dir, id), bytes);
    return { id, path: `https://media.example/${id}`, type, mimeType, size: bytes.length, alt };
  };
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const publish = (content: string, opts: { media?: PublishItem['media']; settings?: Record<string, unknown>; replyTo?: string } = {}, c = ctx()) =>
    adapter.publish(
      { item: { content, media: opts.media ?? [] }, settings: opts.settings ?? {}, replyTo: opts.replyTo ? { id: opts.replyTo, rootId: opts.replyTo } : undefined, idempotencyKey: 'k' },
      c,
    );
  const failure = (p: Promise<unknown>) => p.then(() => expect.fail('expected a PlatformError'), (e: unknown) => e as PlatformError);

  beforeEach(async () => {
    sim = await xSimulator();
    http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
    files = new Map();
    dir = mkdtempSync(join(tmpdir(), 'tidings-x-'));
    account = await connectViaOAuth(adapter, baseCtx(), (url) => http.rewriteUrl(url));
  });
  afterEach(async () => {
    await http.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects with PKCE and HTTP Basic client auth, asking for offline.access, and keeps a 2-hour token', async () => {
    const begun = await adapter.beginConnect!({ state: 's', redirectUri: 'https://app.example/cb', codeChallenge: 'abc' }, baseCtx());
    const url = new URL(begun.url);
    expect(`${url.origin}${url.pathname}`).toBe('https://x.com/i/oauth2/authorize');
    expect(url.searchParams.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['tweet.write', 'media.write', 'offline.access']));
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');

    expect(account).toMatchObject({ internalId: USER.id, name: 'Acme Inc.', profile: 'acme', picture: USER.profile_image_url });
    expect(account.credentials).toMatchObject({ userId: USER.id, username: 'acme', verified: false, refreshToken: expect.any(String) });
    expect(account.expiresAt!.getTime() - Date.now()).toBeGreaterThan(7100_000);
    const tokenCall = sim.log.find((r) => r.path === '/2/oauth2/token')!;
    expect(tokenCall.headers.authorization).toMatch(/^Basic /);
    expect(tokenCall.body).not.toHaveProperty('client_secret');
  });

  it('rotates the refresh token; a spent one means reconnect', async () => {
    const first = await adapter.refresh!(ctx());
    expect(first.credentials.refreshToken).not.toBe(account.credentials.refreshToken);
    const again = await failure(adapter.refresh!(ctx()));
    expect(again.kind).toBe('reconnect_required');
    expect(again.message).toMatch(/token was invalid/);
    const r = await publish('<p>with the new pair</p>', {}, ctx({ credentials: first.credentials }));
    expect(r.status).toBe('published');
  });

  it('maps the settings onto the first post and the labels onto every post; text is plain', async () => {
    const settings = { who_can_reply_post: 'following', community: 'https://x.com/i/communities/1234567890', made_with_ai: true, paid_partnership: true };
    const root = await publish('<p>Hello <strong>there</strong> &amp; welcome</p><p>line two</p>', { settings });
    if (root.status !== 'published') throw new Error('expected published');
    expect(root.url).toBe(`https://x.com/acme/status/${root.id}`);
    const reply = await publish('<p>a reply</p>', { settings, replyTo: root.id });
    if (reply.status !== 'published') throw new Error('expected published');
    const [t1, t2] = sim.tweets;
    expect(t1).toMatchObject({ text: 'Hello there & welcome\nline two', reply_settings: 'following', community_id: '1234567890', made_with_ai: true, paid_partnership: true });
    expect(t2).toMatchObject({ replyTo: root.id, made_with_ai: true, paid_partnership: true });
    expect(t2).not.toHaveProperty('reply_settings');
    expect(t2).not.toHaveProperty('community_id');
    expect(tweetBody('<p>x</p>', { who_can_reply_post: 'everyone' })).toEqual({ text: 'x' });
  });

  it('refuses duplicate content and over-long text as rejected, with X messages', async () => {
    await publish('<p>same words</p>');
    const dup = await failure(publish('<p>same words</p>'));
    expect({ kind: dup.kind, status: dup.details.status, message: dup.message }).toEqual({ kind: 'rejected', status: 403, message: 'You are not allowed to create a Tweet with duplicate content.' });

    // 140 CJK characters weigh 280: accepted; one more is over.
    expect((await publish('漢'.repeat(140))).status).toBe('published');
    const long = await failure(publish('字'.repeat(141)));
    expect({ kind: long.kind, status: long.details.status }).toEqual({ kind: 'rejected', status: 400 });
    expect(long.message).toMatch(/too long: 282 weighted/);
  });

  it('uploads images in one request with their alt text', async () => {
    const png = randomBytes(3000);
    const r = await publish('<p>pictures</p>', { media: [media('a', png, 'image', 'image/png', 'A red door'), media('b', randomBytes(10), 'image', 'image/jpeg')] });
    if (r.status !== 'published') throw new Error('expected published');
    const t = sim.tweets.at(-1)!;
    expect(t.mediaSha256).toEqual([sha(png), sha(files.get('b')!)]);
    expect(t.altTexts).toEqual(['A red door', undefined]);
    expect(sim.log.filter((x) => x.path === '/2/media/upload' && x.method === 'POST')).toHaveLength(2);
  });

  it('uploads a video in 1 MiB chunks, answers pending while X processes it, then posts once', async () => {
    const video = randomBytes(2 * CHUNK_BYTES + 12345);
    const r = await publish('<p>watch this</p>', { media: [media('v', video, 'video', 'video/mp4')] });
    expect(r.status).toBe('pending');
    if (r.status !== 'pending') return;
    expect(sim.log.filter((x) => /\/append$/.test(x.path))).toHaveLength(3);
    expect(sim.tweets).toHaveLength(0);

    expect((await adapter.checkPublish!(r.token, ctx())).status).toBe('pending');
    const done = await adapter.checkPublish!(r.token, ctx());
    if (done.status !== 'published') throw new Error('expected published');
    expect(sim.tweets).toHaveLength(1);
    expect(sim.tweets[0]!.mediaSha256).toEqual([sha(video)]);

    // A repeated check (say its answer was lost) finds the post instead of posting again.
    expect(await adapter.checkPublish!(r.token, ctx())).toEqual(done);
    expect(sim.tweets).toHaveLength(1);
  });

  it('reports failed media processing as rejected', async () => {
    sim.failNextProcessing();
    const err = await failure(publish('<p>broken</p>', { media: [media('g', randomBytes(500), 'image', 'image/gif')] }));
    expect(err.kind).toBe('rejected');
    expect(err.message).toMatch(/Unsupported media/);
  });

  it('a lost answer during the upload stays safe to retry: no post can exist yet', async () => {
    const real = ctx().http;
    const flaky: PlatformHttp = {
      request: (req) =>
        /\/append$/.test(req.url) ? Promise.reject(new PlatformError('transient', 'POST api.x.com timed out', { outcomeUnknown: true })) : real.request(req),
    };
    const err = await failure(publish('<p>video</p>', { media: [media('v2', randomBytes(100), 'video', 'video/mp4')] }, ctx({ http: flaky })));
    expect({ kind: err.kind, unknown: err.details.outcomeUnknown }).toEqual({ kind: 'transient', unknown: false });
  });

  it('counts posts per 15-minute window and says when the window resets', async () => {
    sim.setTweetLimit(2);
    await publish('<p>one</p>');
    await publish('<p>two</p>');
    const err = await failure(publish('<p>three</p>'));
    expect(err.kind).toBe('rate_limited');
    expect(err.details.retryAfterSeconds).toBeGreaterThan(800);
    expect(err.details.retryAfterSeconds).toBeLessThanOrEqual(901); // both ends round up to whole seconds
  });

  it('reads the rate-limit reset (epoch seconds), and the 24-hour cap when that one is spent', () => {
    const now = Date.UTC(2026, 0, 1);
    const reset = String(now / 1000 + 600);
    const body = { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 };
    expect(xError({ status: 429, headers: { 'x-rate-limit-reset': reset }, body }, now)?.details.retryAfterSeconds).toBe(600);
    const daily = xError({ status: 429, headers: { 'x-rate-limit-reset': reset, 'x-user-limit-24hour-remaining': '0', 'x-user-limit-24hour-reset': String(now / 1000 + 36_000) }, body }, now);
    expect(daily?.details.retryAfterSeconds).toBe(36_000);
    const capped = xError({ status: 429, headers: {}, body: { title: 'UsageCapExceeded', type: 'https://api.twitter.com/2/problems/usage-capped', detail: 'Usage cap exceeded: Monthly product cap', status: 429 } }, now);
    expect(capped?.kind).toBe('rejected');
    const invalid = xError({ status: 400, headers: {}, body: { errors: [{ message: 'The `text` field is required.' }], title: 'Invalid Request', detail: 'One or more parameters to your request was invalid.', type: 'https://api.twitter.com/2/problems/invalid-request' } }, now);
    expect(invalid?.message).toBe('The `text` field is required.');
  });

  it('lists recent posts across pages, newest first, from start_time on', async () => {
    for (let i = 1; i <= 12; i++) await publish(`<p>post ${i}</p>`);
    const recent = await adapter.findRecent!({ since: new Date(Date.now() - 60_000), limit: 7 }, ctx());
    expect(recent.map((r) => r.content)).toEqual(['post 12', 'post 11', 'post 10', 'post 9', 'post 8', 'post 7', 'post 6']);
    expect(recent[0]).toMatchObject({ url: `https://x.com/acme/status/${recent[0]!.id}`, createdAt: expect.stringMatching(/^\d{4}-/) });
    expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 7 }, ctx())).toEqual([]);
    expect(sim.log.find((r) => r.path.includes('/tweets?'))!.path).toMatch(/start_time=\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A\d\dZ/);
  });

  it('reads channel and post figures; a deleted post is rejected', async () => {
    const r = await publish('<p>counted</p>');
    if (r.status !== 'published') throw new Error('expected published');
    sim.tweets[0]!.metrics.impression_count = 321;
    const channel = await adapter.analytics!(30, ctx());
    expect(channel.map((s) => [s.label, s.data[0]!.total])).toEqual([
      ['Followers', 1200],
      ['Following', 80],
      ['Tweets', 1],
    ]);
    const post = await adapter.postAnalytics!(r.id, 30, ctx());
    expect(post.find((s) => s.label === 'Impressions')!.data[0]!.total).toBe(321);
    const gone = await failure(adapter.postAnalytics!('1999999999999999999', 30, ctx()));
    expect(gone).toMatchObject({ kind: 'rejected', message: 'Could not find tweet with id: [1999999999999999999].' });
  });

  it('validates: articles are not supported yet, a GIF goes alone, a post needs text or media', () => {
    const gif = { type: 'image' as const, mimeType: 'image/gif', size: 10 };
    const png = { type: 'image' as const, mimeType: 'image/png', size: 10 };
    expect(adapter.validate({ settings: { post_type: 'article', article_title: 'T', article_status: 'draft' }, items: [{ content: '<p>x</p>', media: [] }] })).toEqual([
      expect.objectContaining({ path: 'settings.post_type', message: expect.stringMatching(/articles/) }),
    ]);
    expect(adapter.validate({ settings: { who_can_reply_post: 'everyone' }, items: [{ content: '<p>x</p>', media: [gif, png] }, { content: '<p></p>', media: [] }] }).map((i) => i.path)).toEqual([
      'value.0.image',
      'value.1.content',
    ]);
    expect(adapter.validate({ settings: { who_can_reply_post: 'everyone' }, items: [{ content: '', media: [gif] }] })).toEqual([]);
  });
});
