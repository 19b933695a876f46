import { describe, expect, it } from 'vitest';
import { oauthConnector, runSimulatorContract, StreamOnlyBlob } from '../common/unit.testkit.js';
import { createManualClock } from '../../lib/clock.js';
import { PlatformError } from '../platform.js';
import { DEFAULT_RETRY_AFTER_SECONDS, linkedinError } from './errors.js';
import { createLinkedinAdapter, LINKEDIN_VERSION } from './index.js';
import { ACTIVE_LINKEDIN_VERSIONS, renderLittleText } from './linkedin.simulator.js';
import { ADA, APP, image, linkedinSimulator, originsFor, PNG, post, published, rewriteFor, sha, video, withLinkedin, type TestCtx } from './linkedin.testkit.js';
import { escapeLittleText, unescapeLittleText } from '../common/linkedin-little-text.js';

const adapter = createLinkedinAdapter({ app: APP });
const connect = oauthConnector(adapter, rewriteFor);

runSimulatorContract({ name: 'linkedin', adapter, errorsIn200: false, start: () => linkedinSimulator(), origins: originsFor, connect });

describe('linkedin little text', () => {
  it('escapes every reserved character with a backslash, and unescapes back', () => {
    const plain = 'a\\b|c{d}e@f[g]h(i)j<k>l#m*n_o~p';
    expect(escapeLittleText(plain)).toBe('a\\\\b\\|c\\{d\\}e\\@f\\[g\\]h\\(i\\)j\\<k\\>l\\#m\\*n\\_o\\~p');
    expect(unescapeLittleText(escapeLittleText(plain))).toBe(plain);
    expect(escapeLittleText('plain words, 100% fine!')).toBe('plain words, 100% fine!');
  });

  it('the simulator cuts unescaped commentary at the first reserved character, as LinkedIn does', () => {
    expect(renderLittleText('Launch (beta) today')).toBe('Launch ');
    expect(renderLittleText(escapeLittleText('Launch (beta) today'))).toBe('Launch (beta) today');
    expect(renderLittleText('Hi @[Ada](urn:li:person:1) {hashtag|\\#|ai}')).toBe('Hi Ada #ai');
  });
});

describe('linkedin specifics', () => {

  it('connects the member from OIDC userinfo and stores the 60-day token', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: ADA.sub, name: 'Ada Lovelace', picture: ADA.picture });
      expect(account.credentials).toMatchObject({ memberUrn: `urn:li:person:${ADA.sub}`, authorUrn: `urn:li:person:${ADA.sub}`, refreshToken: expect.any(String) });
      expect(account.expiresAt!.getTime() - Date.now()).toBeGreaterThan(59 * 86_400_000);
      const authorize = sim.log.find((r) => r.path.startsWith('/oauth/v2/authorization'))!;
      expect(new URL(authorize.path, 'http://x').searchParams.get('scope')).toBe('openid profile w_member_social');
      const tokenCall = sim.log.find((r) => r.path === '/oauth/v2/accessToken')!;
      expect(tokenCall.body).toMatchObject({ grant_type: 'authorization_code', client_id: APP.clientId, client_secret: APP.clientSecret });
    });
  });

  it('says LinkedIn is not configured when there is no app', async () => {
    const err = (await createLinkedinAdapter({})
      .beginConnect!({ state: 's', redirectUri: 'http://localhost/cb' }, {} as TestCtx)
      .catch((e: unknown) => e)) as PlatformError;
    expect(err).toBeInstanceOf(PlatformError);
    expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'unsupported', message: 'LinkedIn is not configured' });
  });

  it('escapes the commentary so LinkedIn shows it whole, and sends the version headers', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await post(adapter, ctx, account, '<p>Ship it (v2) @team #launch *now* &lt;3 [link] {x} a|b ~ _ \\</p>'));
      const stored = sim.posts.find((p) => p.urn === r.id)!;
      expect(stored.commentary).toBe('Ship it \\(v2\\) \\@team \\#launch \\*now\\* \\<3 \\[link\\] \\{x\\} a\\|b \\~ \\_ \\\\');
      expect(stored.text).toBe('Ship it (v2) @team #launch *now* <3 [link] {x} a|b ~ _ \\');
      const call = sim.log.find((l) => l.method === 'POST' && l.path === '/rest/posts')!;
      expect(call.headers['linkedin-version']).toBe(LINKEDIN_VERSION);
      expect(call.headers['x-restli-protocol-version']).toBe('2.0.0');
      expect(call.body).toMatchObject({ author: `urn:li:person:${ADA.sub}`, visibility: 'PUBLIC', lifecycleState: 'PUBLISHED', isReshareDisabledByAuthor: false, distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] } });
    });
  });

  it('takes the post id from x-restli-id (the body is empty) and builds the feed URL', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const raw = await fetch(`${sim.origin}/rest/posts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.credentials.accessToken as string}`, 'linkedin-version': LINKEDIN_VERSION, 'content-type': 'application/json' },
        body: JSON.stringify({ author: `urn:li:person:${ADA.sub}`, commentary: 'direct', visibility: 'PUBLIC', distribution: { feedDistribution: 'MAIN_FEED' }, lifecycleState: 'PUBLISHED' }),
      });
      expect(raw.status).toBe(201);
      expect(await raw.text()).toBe('');
      expect(raw.headers.get('x-restli-id')).toMatch(/^urn:li:share:\d+$/);

      const r = published(await post(adapter, ctx, account, '<p>by header</p>'));
      expect(r.id).toBe(sim.posts.at(-1)!.urn);
      expect(r.url).toBe(`https://www.linkedin.com/feed/update/${r.id}`);

      // A 201 without the header: the post may exist, so the outcome is unknown.
      sim.inject({ path: /^\/rest\/posts$/, status: 201, body: '' });
      const err = (await post(adapter, ctx, account, '<p>no header</p>').catch((e: unknown) => e)) as PlatformError;
      expect({ kind: err.kind, unknown: err.details.outcomeUnknown }).toEqual({ kind: 'transient', unknown: true });
    });
  });

  it('the simulator refuses a missing or retired LinkedIn-Version, as LinkedIn does', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const auth = { authorization: `Bearer ${account.credentials.accessToken as string}` };
      const missing = await fetch(`${sim.origin}/rest/posts?q=author&author=x`, { headers: auth });
      expect(missing.status).toBe(400);
      expect(await missing.json()).toMatchObject({ code: 'VERSION_MISSING' });
      const old = await fetch(`${sim.origin}/rest/posts?q=author&author=x`, { headers: { ...auth, 'linkedin-version': '202306' } });
      expect(old.status).toBe(426);
      expect(ACTIVE_LINKEDIN_VERSIONS.has(LINKEDIN_VERSION)).toBe(true);
    });
  });

  it('uploads several pictures and posts them as a multiImage, in order, with alt text', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const bytes = [PNG(1), PNG(2), PNG(3)];
      bytes.forEach((b, i) => ctx.media.set(`m${i}`, new Blob([b], { type: 'image/png' })));
      const r = published(await post(adapter, ctx, account, '<p>three</p>', { media: [image('m0', 'first'), image('m1'), image('m2')] }));
      const stored = sim.posts.find((p) => p.urn === r.id)!;
      expect(stored.mediaSha256).toEqual(bytes.map(sha));
      expect(stored.content).toEqual({ multiImage: { images: [{ id: stored.mediaUrns[0], altText: 'first' }, { id: stored.mediaUrns[1] }, { id: stored.mediaUrns[2] }] } });
      const uploads = sim.log.filter((l) => l.method === 'PUT' && l.path.startsWith('/dms-uploads/'));
      expect(uploads).toHaveLength(3);
      expect(uploads.every((u) => u.headers.authorization === `Bearer ${account.credentials.accessToken as string}`)).toBe(true);

      const one = published(await post(adapter, ctx, account, '<p>one</p>', { media: [image('m1')] }));
      expect(sim.posts.find((p) => p.urn === one.id)!.content).toEqual({ media: { id: expect.stringMatching(/^urn:li:image:/) } });
    });
  });

  it('posts pictures as one PDF carousel titled carousel_name', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      [PNG(9), PNG(10)].forEach((b, i) => ctx.media.set(`c${i}`, new Blob([b], { type: 'image/png' })));
      const r = published(await post(adapter, ctx, account, '<p>slides</p>', { media: [image('c0'), image('c1')], settings: { post_as_images_carousel: true, carousel_name: 'Q3 results' } }));
      const stored = sim.posts.find((p) => p.urn === r.id)!;
      expect(stored.content).toEqual({ media: { id: expect.stringMatching(/^urn:li:document:/), title: 'Q3 results' } });
      const doc = sim.assets.get(stored.mediaUrns[0]!)!;
      expect({ status: doc.status, pages: doc.pages }).toEqual({ status: 'AVAILABLE', pages: 2 });
    });
  });

  it('validates carousels and lone videos', () => {
    const img = { type: 'image' as const, mimeType: 'image/png', size: 10 };
    const gif = { type: 'image' as const, mimeType: 'image/gif', size: 10 };
    const vid = { type: 'video' as const, mimeType: 'video/mp4', size: 10 };
    const check = (media: (typeof img | typeof vid | typeof gif)[], settings: Record<string, unknown> = { post_as_images_carousel: true }) =>
      adapter.validate({ settings, items: [{ content: 'x', media }] }).map((i) => `${i.path} ${i.code}`);
    expect(check([img, img])).toEqual([]);
    expect(check([img])).toEqual(['value.0.image carousel_min_images']);
    expect(check([])).toEqual(['value.0.image carousel_min_images']);
    expect(check([vid])).toEqual(['value.0.image carousel_no_video', 'value.0.image carousel_min_images']);
    expect(check([img, img, vid])).toEqual(['value.0.image video_alone', 'value.0.image carousel_no_video']);
    expect(check([img, gif])).toEqual(['value.0.image carousel_format']);
    expect(check([img], {})).toEqual([]);
    expect(check([img, vid], {})).toEqual(['value.0.image video_alone']);
    expect(check([vid], {})).toEqual([]);
  });

  it('uploads a video in the parts LinkedIn asks for, answers pending, then posts it once AVAILABLE', async () => {
    await withLinkedin({ videoPartSize: 4, videoPollsUntilAvailable: 2 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const bytes = Buffer.from('0123456789'); // three parts: 4 + 4 + 2 bytes
      ctx.media.set('v', new Blob([bytes], { type: 'video/mp4' }));
      const first = await post(adapter, ctx, account, '<p>watch this</p>', { media: [video('v', bytes.length)] });
      expect(first.status).toBe('pending');
      if (first.status !== 'pending') return;
      expect(sim.log.filter((l) => l.method === 'PUT' && l.path.includes('/videoUploadPart/'))).toHaveLength(3);
      expect(sim.posts).toHaveLength(0);
      const c = { ...ctx, credentials: account.credentials };
      const second = await adapter.checkPublish!(first.token, c);
      expect(second.status).toBe('pending');
      const done = published(await adapter.checkPublish!(first.token, c));
      expect(sim.lookup(done.id)).toEqual({ text: 'watch this', mediaSha256: [sha(bytes)] });
      // Polling again after an unknown outcome finds the same post instead of failing as a duplicate.
      expect(await adapter.checkPublish!(first.token, c)).toEqual(done);
      expect(sim.posts).toHaveLength(1);
    });
  });

  it('streams pictures and video parts from the stored Blob, never reading the file whole', async () => {
    await withLinkedin({ videoPartSize: 4, videoPollsUntilAvailable: 0 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const pictures = [PNG(21), PNG(22)];
      pictures.forEach((b, i) => ctx.media.set(`s${i}`, new StreamOnlyBlob([b], { type: 'image/png' })));
      const shown = published(await post(adapter, ctx, account, '<p>streamed pictures</p>', { media: [image('s0'), image('s1')] }));
      expect(sim.posts.find((p) => p.urn === shown.id)!.mediaSha256).toEqual(pictures.map(sha));

      const bytes = Buffer.from('abcdefghijk'); // three parts: 4 + 4 + 3 bytes, each a slice of the file
      ctx.media.set('sv', new StreamOnlyBlob([bytes], { type: 'video/mp4' }));
      const first = await post(adapter, ctx, account, '<p>streamed video</p>', { media: [video('sv', bytes.length)] });
      const done = first.status === 'pending' ? await adapter.checkPublish!(first.token, { ...ctx, credentials: account.credentials }) : first;
      expect(sim.lookup(published(done).id)).toEqual({ text: 'streamed video', mediaSha256: [sha(bytes)] });
    });
  });

  it('a video LinkedIn cannot process is rejected with its reason', async () => {
    await withLinkedin({ videoPollsUntilAvailable: 5 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      ctx.media.set('v', new Blob([Buffer.from('not really a video')], { type: 'video/mp4' }));
      const first = await post(adapter, ctx, account, '<p>broken</p>', { media: [video('v', 18)] });
      if (first.status !== 'pending') throw new Error('expected pending');
      sim.failVideoProcessing([...sim.assets.values()].find((a) => a.kind === 'video')!.urn, 'INVALID_VIDEO_FORMAT');
      const err = (await adapter.checkPublish!(first.token, { ...ctx, credentials: account.credentials }).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'rejected', message: 'LinkedIn could not process the video: INVALID_VIDEO_FORMAT' });
    });
  });

  it('comments as the member on the first post, text only, with a comment URL', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const root = published(await post(adapter, ctx, account, '<p>root</p>'));
      const reply = published(await post(adapter, ctx, account, '<p>more (details)</p>', { replyTo: { id: root.id, rootId: root.id } }));
      expect(sim.comments).toEqual([expect.objectContaining({ urn: reply.id, object: root.id, actor: `urn:li:person:${ADA.sub}`, text: 'more (details)' })]);
      expect(reply.url).toBe(`https://www.linkedin.com/feed/update/${root.id}?commentUrn=${encodeURIComponent(reply.id)}`);
      const withMedia = (await post(adapter, ctx, account, '<p>pic</p>', { media: [image('x')], replyTo: { id: root.id, rootId: root.id } }).catch((e: unknown) => e)) as PlatformError;
      expect(withMedia.kind).toBe('rejected');
    });
  });

  it('refuses a real duplicate with LinkedIn’s message', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const first = published(await post(adapter, ctx, account, '<p>same words</p>'));
      const err = (await post(adapter, ctx, account, '<p>same words</p>').catch((e: unknown) => e)) as PlatformError;
      expect({ kind: err.kind, code: err.details.platformCode, message: err.message }).toEqual({ kind: 'rejected', code: 'DUPLICATE_POST', message: `Content is a duplicate of ${first.id}` });
    });
  });

  it('finds recent posts newest first with the commentary as shown', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const since = new Date(Date.now() - 1000);
      const a = published(await post(adapter, ctx, account, '<p>first (1)</p>'));
      const b = published(await post(adapter, ctx, account, '<p>second #2</p>'));
      sim.posts[0]!.createdAt = sim.posts[0]!.lastModifiedAt = Date.now() - 500;
      const recent = await adapter.findRecent!({ since, limit: 10 }, { ...ctx, credentials: account.credentials });
      expect(recent.map((r) => [r.id, r.content])).toEqual([
        [b.id, 'second #2'],
        [a.id, 'first (1)'],
      ]);
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 10 }, { ...ctx, credentials: account.credentials })).toEqual([]);
    });
  });

  it('an app without r_member_social cannot list the member’s posts or comments: unsupported, not a lost grant', async () => {
    await withLinkedin({ memberReadsNeedScope: true }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      const first = published(await post(adapter, ctx, account, '<p>still publishes</p>'));
      for (const replyTo of [undefined, { id: first.id, rootId: first.id }]) {
        const err = (await adapter.findRecent!({ since: new Date(0), limit: 10, ...(replyTo ? { replyTo } : {}) }, c).catch((e: unknown) => e)) as PlatformError;
        expect(err).toBeInstanceOf(PlatformError);
        expect({ kind: err.kind, status: err.details.status }).toEqual({ kind: 'unsupported', status: 403 });
        expect(err.message).toContain('r_member_social');
      }
    });
  });

  it('reconciling a thread item finds only its own comments on the thread’s post, past the first page', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      const since = Date.now() - 600_000;
      const root = published(await post(adapter, ctx, account, '<p>root</p>'));
      const elsewhere = published(await post(adapter, ctx, account, '<p>another post</p>'));
      const replyTo = { id: root.id, rootId: root.id };
      const first = published(await post(adapter, ctx, account, '<p>my first (comment)</p>', { replyTo }));
      const stale = published(await post(adapter, ctx, account, '<p>from last week</p>', { replyTo }));
      published(await post(adapter, ctx, account, '<p>on another post</p>', { replyTo: { id: elsewhere.id, rootId: elsewhere.id } }));
      sim.comments.find((x) => x.urn === first.id)!.createdAt = since + 1000;
      sim.comments.find((x) => x.urn === stale.id)!.createdAt = since - 7 * 86_400_000;
      // Another member's comments, newer than ours: one repeats our words, and they fill more than a page.
      const babbage = 'urn:li:person:Bb7_other';
      const copy = sim.addComment({ object: root.id, actor: babbage, text: 'my first (comment)', createdAt: since + 2000 });
      for (let i = 0; i < 120; i++) sim.addComment({ object: root.id, actor: babbage, text: `reply ${i}`, createdAt: since + 3000 + i });
      const last = published(await post(adapter, ctx, account, '<p>my last comment</p>', { replyTo }));

      const found = await adapter.findRecent!({ since: new Date(since), limit: 50, replyTo }, c);
      expect(found).toEqual([
        { id: last.id, url: last.url, content: 'my last comment', createdAt: new Date(sim.comments.find((x) => x.urn === last.id)!.createdAt).toISOString() },
        { id: first.id, url: first.url, content: 'my first (comment)', createdAt: new Date(since + 1000).toISOString() },
      ]);
      expect(found.map((f) => f.id)).not.toContain(copy.urn);
      // Newest first, 100 a page: our first comment is on the second page.
      const reads = sim.log.filter((l) => l.method === 'GET' && l.path.startsWith('/rest/socialActions/'));
      expect(reads.map((r) => r.path)).toEqual([
        `/rest/socialActions/${encodeURIComponent(root.id)}/comments?start=0&count=100`,
        `/rest/socialActions/${encodeURIComponent(root.id)}/comments?start=100&count=100`,
      ]);
      expect(reads.every((r) => r.headers['linkedin-version'] === LINKEDIN_VERSION && r.headers['x-restli-protocol-version'] === '2.0.0')).toBe(true);
      expect((await adapter.findRecent!({ since: new Date(since), limit: 1, replyTo }, c)).map((f) => f.id)).toEqual([last.id]);
      // Without replyTo, the posts: no comment among them.
      expect((await adapter.findRecent!({ since: new Date(since), limit: 50 }, c)).map((f) => f.id).sort()).toEqual([root.id, elsewhere.id].sort());
    });
  });

  it('the simulator lists a post’s comments as LinkedIn does, and checks who asks and how', async () => {
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const root = published(await post(adapter, ctx, account, '<p>listed</p>'));
      const mine = published(await post(adapter, ctx, account, '<p>a comment</p>', { replyTo: { id: root.id, rootId: root.id } }));
      const url = (urn: string, query = '') => `${sim.origin}/rest/socialActions/${encodeURIComponent(urn)}/comments${query}`;
      const as = (token: unknown, version: string | null = LINKEDIN_VERSION) => ({
        headers: { authorization: `Bearer ${token as string}`, 'x-restli-protocol-version': '2.0.0', ...(version ? { 'linkedin-version': version } : {}) },
      });
      const ok = await fetch(url(root.id), as(account.credentials.accessToken));
      expect(ok.status).toBe(200);
      const created = sim.comments[0]!.createdAt;
      expect(await ok.json()).toEqual({
        paging: { start: 0, count: 10, links: [], total: 1 },
        elements: [
          {
            actor: `urn:li:person:${ADA.sub}`,
            commentsSummary: { selectedComments: [], totalFirstLevelComments: 0, aggregatedTotalComments: 0 },
            created: { actor: `urn:li:person:${ADA.sub}`, time: created },
            lastModified: { actor: `urn:li:person:${ADA.sub}`, time: created },
            id: /,(\d+)\)$/.exec(mine.id)![1],
            $URN: mine.id,
            message: { attributes: [], text: 'a comment' },
            object: root.id,
          },
        ],
      });

      const missingVersion = await fetch(url(root.id), as(account.credentials.accessToken, null));
      expect({ status: missingVersion.status, body: await missingVersion.json() }).toMatchObject({ status: 400, body: { status: 400, code: 'VERSION_MISSING' } });
      const badToken = await fetch(url(root.id), as('nope'));
      expect({ status: badToken.status, body: await badToken.json() }).toMatchObject({ status: 401, body: { serviceErrorCode: 65600, code: 'INVALID_ACCESS_TOKEN' } });
      const unknown = await fetch(url('urn:li:share:123'), as(account.credentials.accessToken));
      expect({ status: unknown.status, body: await unknown.json() }).toEqual({ status: 404, body: { status: 404, code: 'NOT_FOUND', message: 'Unable to obtain activity for urn:li:share:123' } });
      const badPaging = await fetch(url(root.id, '?start=-1&count=10'), as(account.credentials.accessToken));
      expect({ status: badPaging.status, body: await badPaging.json() }).toMatchObject({ status: 400, body: { code: 'ILLEGAL_ARGUMENT' } });

      // Another member may not read the social actions on Ada's own posts.
      sim.approveAs('Bb7_other');
      const other = await connect(sim, ctx);
      const refused = await fetch(url(root.id), as(other.credentials.accessToken));
      expect({ status: refused.status, body: await refused.json() }).toMatchObject({ status: 403, body: { code: 'ACCESS_DENIED' } });
      const err = (await adapter.findRecent!({ since: new Date(0), limit: 5, replyTo: { id: root.id, rootId: root.id } }, { ...ctx, credentials: other.credentials }).catch((e: unknown) => e)) as PlatformError;
      expect({ kind: err.kind, code: err.details.platformCode }).toEqual({ kind: 'unsupported', code: 'ACCESS_DENIED' });
    });
  });

  it('revoked tokens need a reconnect; without a refresh token an expired one does too', async () => {
    await withLinkedin({ refreshTokens: false }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account.credentials.refreshToken).toBeNull();
      const c = { ...ctx, credentials: account.credentials };
      // Still valid: refresh keeps the token.
      expect((await adapter.refresh!(c)).credentials).toEqual(account.credentials);
      sim.expireAccessTokens();
      const expired = (await post(adapter, ctx, account, '<p>late</p>').catch((e: unknown) => e)) as PlatformError;
      expect(expired.kind).toBe('reconnect_required');
      const later = { ...c, clock: { now: () => Date.now() + 61 * 86_400_000 } };
      expect(((await adapter.refresh!(later).catch((e: unknown) => e)) as PlatformError).kind).toBe('reconnect_required');
    });
    await withLinkedin({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.revokeAccessTokens();
      expect(((await post(adapter, ctx, account, '<p>gone</p>').catch((e: unknown) => e)) as PlatformError).kind).toBe('reconnect_required');
      expect(((await adapter.refresh!({ ...ctx, credentials: account.credentials }).catch((e: unknown) => e)) as PlatformError).kind).toBe('reconnect_required');
    });
  });

  it('waits 60 s on a 429 by default, and until midnight UTC on a daily limit', () => {
    const clock = createManualClock(Date.UTC(2026, 10, 21, 23, 0, 0));
    const res = (message: string, headers: Record<string, string> = {}) => ({ status: 429, headers, body: { status: 429, code: 'TOO_MANY_REQUESTS', message } });
    expect(linkedinError(res('Too many requests'), { now: clock.now() })!.details.retryAfterSeconds).toBe(DEFAULT_RETRY_AFTER_SECONDS);
    expect(linkedinError(res('Resource level throttle MEMBER DAY limit for calls to this resource is reached.'), { now: clock.now() })!.details.retryAfterSeconds).toBe(3600);
    expect(linkedinError(res('x', { 'retry-after': '7' }), { now: clock.now() })!.details.retryAfterSeconds).toBe(7);
    expect(linkedinError({ status: 503, headers: {}, body: { message: 'Service Unavailable' } })!.kind).toBe('transient');
    expect(linkedinError({ status: 403, headers: {}, body: { status: 403, code: 'ACCESS_DENIED', message: 'Not enough permissions' } })!.kind).toBe('reconnect_required');
    expect(linkedinError({ status: 401, headers: {}, body: { status: 401, serviceErrorCode: 65601, code: 'EXPIRED_ACCESS_TOKEN', message: 'expired' } })!.kind).toBe('auth_expired');
  });
});
