import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import { withCreds } from '../common/platform.testkit.js';
import type { PlatformAdapter, PublishMedia } from '../platform.js';
import { meweError } from './errors.js';
import { createMeweAdapter, meweExpiry } from './index.js';
import { ALICE, BIKES, BOOKS, CLOSED, connectViaLogin, GARDEN, MEWE_APP, meweSimulator, originsFor, withMewe } from './mewe.testkit.js';

/**
 * MeWe's developer API is not publicly documented: the simulator imitates what the reference
 * says and ASSUMES the rest. These tests check the adapter against those assumptions; they do not
 * show that MeWe behaves so.
 */

const adapter = createMeweAdapter({ app: MEWE_APP });

/** The contract's posts carry no settings; every MeWe post needs a post type (the timeline here). */
const onTimeline: PlatformAdapter = { ...adapter, publish: (input, ctx) => adapter.publish({ ...input, settings: { postType: 'timeline', ...input.settings } }, ctx) };

// MeWe has no comments an app can make (the reference's implementation has none; the metadata says
// `thread.supported: false`, so posts with thread items are refused when made): the contract's
// thread case cannot apply. The adapter's answer to a reply is tested below.
runSimulatorContract({ name: 'mewe', adapter: onTimeline, errorsIn200: false, start: () => meweSimulator(), origins: originsFor, connect: (sim, ctx) => connectViaLogin(adapter, sim, ctx) });

const item = (content: string, media: PublishMedia[] = []) => ({ content, media });

describe('mewe: connecting through the login page', () => {
  it('sends the app id to the login page and exchanges the loginRequestToken with the app id and key', async () => {
    await withMewe({}, async (sim, ctx) => {
      const { url } = await adapter.beginConnect!({ state: 's1', redirectUri: 'https://tidings.example/integrations/social/mewe/callback' }, ctx);
      const u = new URL(url);
      expect(`${u.origin}${u.pathname}`).toBe('https://mewe.com/login');
      expect(Object.fromEntries(u.searchParams)).toEqual({ client_id: MEWE_APP.clientId, redirect_uri: 'https://tidings.example/integrations/social/mewe/callback', state: 's1' });
      const a = await connectViaLogin(adapter, sim, ctx);
      expect(a).toMatchObject({ internalId: ALICE.userId, name: 'Alice Example', profile: ALICE.handle });
      expect(a.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
      const exchange = sim.log.find((l) => l.path.startsWith('/api/dev/token'))!;
      expect(exchange.headers).toMatchObject({ 'x-app-id': MEWE_APP.clientId, 'x-api-key': MEWE_APP.clientSecret });
      const me = sim.log.find((l) => l.path === '/api/dev/me')!;
      expect(me.headers.authorization).toBe(`Bearer ${(a.credentials as { apiToken: string }).apiToken}`);
    });
  });

  it('a login request the user has not approved yet is refused saying so; once approved it connects; a token is used once', async () => {
    await withMewe({ holdApproval: true }, async (sim, ctx) => {
      const e = await platformFailure(connectViaLogin(adapter, sim, ctx));
      expect(e).toMatchObject({ kind: 'rejected', message: expect.stringMatching(/not been approved on MeWe yet/) });
      const token = sim.loginRequests.at(-1)!.token;
      sim.approve(token);
      const a = await adapter.completeConnect!({ code: token, redirectUri: 'x' }, ctx);
      expect(a.internalId).toBe(ALICE.userId);
      const again = await platformFailure(adapter.completeConnect!({ code: token, redirectUri: 'x' }, ctx));
      expect(again).toMatchObject({ kind: 'rejected', message: 'MeWe refused: Invalid login request token' });
    });
  });

  it('a wrong app key is refused by MeWe; a server without the app says how to configure it', async () => {
    await withMewe({}, async (sim, ctx) => {
      const wrong = createMeweAdapter({ app: { ...MEWE_APP, clientSecret: 'nope' } });
      const e = await platformFailure(connectViaLogin(wrong, sim, ctx));
      expect(e).toMatchObject({ kind: 'rejected', message: "MeWe refused this server's app (MEWE_CLIENT_ID as X-App-Id, MEWE_CLIENT_SECRET as X-Api-Key): Unauthorized" });
      const none = await platformFailure(createMeweAdapter().beginConnect!({ state: 's', redirectUri: 'x' }, ctx));
      expect(none).toMatchObject({ kind: 'unsupported', message: expect.stringMatching(/MeWe is not available on this server.*MEWE_CLIENT_ID/) });
      // A channel on a server without the app fails plainly, before anything is sent.
      const publish = await platformFailure(createMeweAdapter().publish({ item: item('<p>x</p>'), settings: { postType: 'timeline' }, idempotencyKey: 'k' }, { ...ctx, credentials: { token: 'whatever' } }));
      expect(publish).toMatchObject({ kind: 'unsupported', message: expect.stringMatching(/MeWe is not available on this server/) });
    });
  });

  it('reads expiresAt as ISO, epoch seconds or milliseconds; 30 days when missing (assumed)', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(meweExpiry('2026-02-01T00:00:00.000Z', now).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(meweExpiry(1_769_904_000, now).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(meweExpiry(1_769_904_000_000, now).toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(meweExpiry(undefined, now).toISOString()).toBe('2026-01-31T00:00:00.000Z');
  });
});

describe('mewe: groups and posts', () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082', 'hex');
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const photo = (id: string): PublishMedia => ({ id, path: `https://tidings.example/media/${id}.png`, type: 'image', mimeType: 'image/png', size: png.length });
  const open = async () => new Blob([png], { type: 'image/png' });

  it('the groups tool follows nextPage', async () => {
    await withMewe({}, async (sim, ctx) => {
      const c = withCreds(ctx, await connectViaLogin(adapter, sim, ctx));
      expect(await adapter.runTool!('groups', {}, c)).toEqual([
        { id: GARDEN.groupId, name: GARDEN.name },
        { id: BOOKS.groupId, name: BOOKS.name },
        { id: BIKES.groupId, name: BIKES.name },
      ]);
      expect(sim.log.filter((l) => l.path.startsWith('/api/dev/groups')).map((l) => l.path)).toEqual(['/api/dev/groups', '/api/dev/groups?page=2']);
    });
  });

  it('a group post with two photos: uploaded as multipart `file`, then posted with their ids', async () => {
    await withMewe({}, async (sim, ctx) => {
      const c = withCreds(ctx, await connectViaLogin(adapter, sim, ctx));
      const r = await adapter.publish({ item: item('<p>Spring <strong>seeds</strong></p><p>swap</p>', [photo('a'), photo('b')]), settings: { __type: 'mewe', postType: 'group', group: GARDEN.groupId }, idempotencyKey: 'k' }, c);
      const post = sim.posts[0]!;
      expect(r).toEqual({ status: 'published', id: post.postItemId, url: 'https://mewe.com/group/g-garden' });
      expect(post).toMatchObject({ groupId: GARDEN.groupId, text: 'Spring seeds\nswap' });
      expect(post.photos.map((p) => p.sha256)).toEqual([sha(png), sha(png)]);
      const body = sim.log.find((l) => l.path === '/api/dev/group/g-garden/post')!.body;
      expect(body).toEqual({ text: 'Spring seeds\nswap', uploadedPhotoIds: post.photos.map((p) => p.id) });
    }, open);
  });

  it('a timeline post links to the user’s posts; without an id in the answer a local id is kept (as the reference does)', async () => {
    await withMewe({ postsWithoutId: true }, async (sim, ctx) => {
      const c = withCreds(ctx, await connectViaLogin(adapter, sim, ctx));
      const r = await adapter.publish({ item: item('<p>hello</p>'), settings: { postType: 'timeline' }, idempotencyKey: 'k' }, c);
      expect(r).toEqual({ status: 'published', id: expect.stringMatching(/^local-[0-9a-f]{16}$/), url: 'https://mewe.com/alice.example/posts' });
      expect(sim.posts).toMatchObject([{ groupId: null, text: 'hello' }]);
    });
  });

  it('"Forbidden" (not a member) is rejected with MeWe’s word; "Unauthorized" (revoked, expired) asks to reconnect; 420 waits', async () => {
    await withMewe({}, async (sim, ctx) => {
      const c = withCreds(ctx, await connectViaLogin(adapter, sim, ctx));
      const forbidden = await platformFailure(adapter.publish({ item: item('<p>x</p>'), settings: { postType: 'group', group: CLOSED.groupId }, idempotencyKey: 'k' }, c));
      expect(forbidden).toMatchObject({ kind: 'rejected', message: 'MeWe refused: Forbidden' });
      sim.injectKind('rate_limited');
      const calm = await platformFailure(adapter.publish({ item: item('<p>x</p>'), settings: { postType: 'timeline' }, idempotencyKey: 'k' }, c));
      expect(calm).toMatchObject({ kind: 'rate_limited', message: 'MeWe asked to slow down: Enhance Your Calm', details: { retryAfterSeconds: 30, status: 420 } });
      sim.expireAccessTokens();
      const expired = await platformFailure(adapter.publish({ item: item('<p>x</p>'), settings: { postType: 'timeline' }, idempotencyKey: 'k' }, c));
      expect(expired.kind).toBe('reconnect_required');
      expect(sim.posts).toHaveLength(0);
    });
  });

  it('refuses thread items, videos and missing settings before sending anything', async () => {
    await withMewe({}, async (sim, ctx) => {
      const c = withCreds(ctx, await connectViaLogin(adapter, sim, ctx));
      const reply = await platformFailure(adapter.publish({ item: item('<p>x</p>'), settings: { postType: 'timeline' }, replyTo: { id: 'a', rootId: 'a' }, idempotencyKey: 'k' }, c));
      expect(reply.kind).toBe('unsupported');
      const video = await platformFailure(adapter.publish({ item: item('<p>x</p>', [{ ...photo('v'), type: 'video', mimeType: 'video/mp4' }]), settings: { postType: 'timeline' }, idempotencyKey: 'k' }, c));
      expect(video).toMatchObject({ kind: 'rejected', message: 'MeWe posts take photos only' });
      const noGroup = await platformFailure(adapter.publish({ item: item('<p>x</p>'), settings: { postType: 'group' }, idempotencyKey: 'k' }, c));
      expect(noGroup.message).toMatch(/for a group post, the group: group/);
      expect(sim.log.filter((l) => l.method === 'POST')).toHaveLength(0);
    });
  });
});

describe('mewe: error classification (assumed shapes)', () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, body, headers });
  it('reads the words before the status', () => {
    expect(meweError(res(200, { postItemId: 'x' }))).toBeUndefined();
    expect(meweError(res(400, 'Unauthorized'))?.kind).toBe('reconnect_required');
    expect(meweError(res(401, {}))?.kind).toBe('reconnect_required');
    expect(meweError(res(400, { message: 'Enhance Your Calm' }))).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 60 } });
    expect(meweError(res(400, { message: 'Forbidden' }))?.kind).toBe('rejected');
    expect(meweError(res(502, 'Bad Gateway'))?.kind).toBe('transient');
    expect(meweError(res(400, { message: 'Text is too long' }))).toMatchObject({ kind: 'rejected', message: 'MeWe refused: Text is too long' });
  });
});
