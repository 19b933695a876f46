import { describe, expect, it } from 'vitest';
import { runInstagramContract } from '../common/meta-unit.testkit.js';
import { oauthConnector, platformFailure } from '../common/unit.testkit.js';
import {
  addMedia,
  drive,
  IG_BAKERY,
  IG_LOGIN_APP,
  image,
  MP4,
  pending,
  JPEG,
  post,
  published,
  rewriteFor,
  sha,
  video,
  withMeta,
} from './instagram-standalone.testkit.js';
import { createInstagramStandaloneAdapter, REFRESH_MARGIN_MS } from './index.js';

const adapter = createInstagramStandaloneAdapter({ app: IG_LOGIN_APP });
const connect = oauthConnector(adapter, rewriteFor);
const DAY = 86_400_000;

runInstagramContract('instagram-standalone', adapter);

describe('instagram-standalone connect and refresh', () => {
  it('code → one-hour token → 60-day token, the professional account from /me; the channel is due for refresh ten days before expiry', async () => {
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: IG_BAKERY.id, name: IG_BAKERY.name, profile: IG_BAKERY.username, picture: IG_BAKERY.profilePictureUrl });
      const c = account.credentials as { accessToken: string; issuedAt: string; expiresAt: string };
      expect(sim.tokens.get(c.accessToken)).toMatchObject({ kind: 'ig', igUserId: IG_BAKERY.id, longLived: true });
      expect(Date.parse(c.expiresAt) - Date.parse(c.issuedAt)).toBeGreaterThan(59 * DAY);
      expect(account.expiresAt!.getTime()).toBe(Date.parse(c.expiresAt) - REFRESH_MARGIN_MS);
      const authorize = new URL(sim.log.find((r) => r.path.startsWith('/oauth/authorize'))!.path, 'http://x').searchParams;
      expect([authorize.get('enable_fb_login'), authorize.get('response_type'), authorize.get('scope')]).toEqual([
        '0',
        'code',
        'instagram_business_basic,instagram_business_content_publish,instagram_business_manage_comments,instagram_business_manage_insights',
      ]);
      expect(sim.log.find((r) => r.method === 'POST' && r.path === '/oauth/access_token')!.body).toMatchObject({ client_id: IG_LOGIN_APP.clientId, client_secret: IG_LOGIN_APP.clientSecret, grant_type: 'authorization_code' });
      const exchange = new URL(sim.log.find((r) => r.path.startsWith('/access_token'))!.path, 'http://x').searchParams;
      expect([exchange.get('grant_type'), exchange.get('client_secret')]).toEqual(['ig_exchange_token', IG_LOGIN_APP.clientSecret]);
    });
  });

  it('a used code is refused with Instagram’s words', async () => {
    await withMeta({}, async (sim, ctx) => {
      const begun = await adapter.beginConnect!({ state: 's', redirectUri: 'https://tidings.example/cb' }, ctx);
      const back = new URL((await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' })).headers.get('location')!);
      await adapter.completeConnect!({ code: back.searchParams.get('code')!, redirectUri: 'https://tidings.example/cb' }, ctx);
      const again = await platformFailure(adapter.completeConnect!({ code: back.searchParams.get('code')!, redirectUri: 'https://tidings.example/cb' }, ctx));
      expect({ kind: again.kind, message: again.message }).toEqual({ kind: 'rejected', message: 'Instagram refused the authorisation: Invalid authorization code' });
    });
  });

  it('refresh: a token under a day old is kept; later it is renewed for 60 days and the new one works', async () => {
    let offset = 0;
    await withMeta({ now: () => Date.now() + offset }, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const c0 = account.credentials;
      expect(await adapter.refresh!({ ...ctx, credentials: c0 })).toEqual({ credentials: c0, expiresAt: account.expiresAt });
      offset = 51 * DAY;
      sim.advance(offset);
      const renewed = await adapter.refresh!({ ...ctx, credentials: c0 });
      const c1 = renewed.credentials as { accessToken: string; expiresAt: string };
      expect(c1.accessToken).not.toBe(c0.accessToken);
      expect(Date.parse(c1.expiresAt) - (Date.now() + offset)).toBeGreaterThan(59 * DAY);
      expect(renewed.expiresAt!.getTime()).toBe(Date.parse(c1.expiresAt) - REFRESH_MARGIN_MS);
      expect(new URL(sim.log.find((r) => r.path.startsWith('/refresh_access_token'))!.path, 'http://x').searchParams.get('grant_type')).toBe('ig_refresh_token');
      const pic = image('after');
      addMedia(ctx, server, pic, JPEG(3));
      const r = published(await post(adapter, ctx, { ...account, credentials: renewed.credentials }, '<p>renewed</p>', { media: [pic], settings: { post_type: 'post' } }));
      expect(sim.igMedia.find((m) => m.id === r.id)!.caption).toBe('renewed');
    });
  });

  it('a token that can no longer be renewed needs a reconnect: expired, invalidated, or past its date', async () => {
    await withMeta({}, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      sim.expireAccessTokens({ pastRefresh: true });
      const pic = image('late');
      addMedia(ctx, server, pic, JPEG(4));
      expect((await platformFailure(post(adapter, ctx, account, '<p>late</p>', { media: [pic], settings: { post_type: 'post' } }))).kind).toBe('auth_expired');
      const dead = await platformFailure(adapter.refresh!(c));
      expect({ kind: dead.kind, code: dead.details.platformCode }).toEqual({ kind: 'reconnect_required', code: '190/463' });
    });
    await withMeta({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.revokeAccessTokens();
      expect((await platformFailure(adapter.refresh!({ ...ctx, credentials: account.credentials }))).kind).toBe('reconnect_required');
      const past = await platformFailure(adapter.refresh!({ ...ctx, clock: { now: () => Date.now() + 61 * DAY }, credentials: account.credentials }));
      expect(past.kind).toBe('reconnect_required');
      expect(past.message).toMatch(/can no longer be renewed/);
    });
  });
});

describe('instagram-standalone publishing on graph.instagram.com', () => {
  it('a reel over several checks with the Instagram token, once; audio is refused by validate', async () => {
    await withMeta({ videoPolls: 3 }, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const clip = video('v', 90);
      addMedia(ctx, server, clip, MP4(8, 90));
      const first = pending(await post(adapter, ctx, account, '<p>standalone reel</p>', { media: [clip], settings: { post_type: 'post' } }));
      const done = published((await drive(adapter, ctx, account, first)).at(-1)!);
      expect(sim.igMedia.find((m) => m.id === done.id)).toMatchObject({ productType: 'REELS', caption: 'standalone reel', mediaSha256: [sha(MP4(8, 90))] });
      const create = sim.log.find((l) => l.method === 'POST' && l.path === `/v23.0/${IG_BAKERY.id}/media`)!;
      expect(create.headers.authorization).toBe(`Bearer ${account.credentials.accessToken as string}`);
      expect(sim.mediaPublishCalls).toHaveLength(1);
      expect(await adapter.checkPublish!(first.token, { ...ctx, credentials: account.credentials })).toEqual(done);
      expect(sim.mediaPublishCalls).toHaveLength(1);
    });
    const issues = adapter.validate({ settings: { post_type: 'post', audio: { id: '1' } }, items: [{ content: 'x', media: [{ type: 'video', mimeType: 'video/mp4', size: 10, duration: 10 }] }] });
    expect(issues.map((i) => `${i.path} ${i.code}`)).toEqual(['settings.audio audio_unsupported']);
  });

  it('a carousel and its first comment', async () => {
    await withMeta({}, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const items = [image('a'), image('b')];
      items.forEach((m, i) => addMedia(ctx, server, m, JPEG(80 + i)));
      const root = published(await post(adapter, ctx, account, '<p>two</p>', { media: items, settings: { post_type: 'post' } }));
      expect(sim.igMedia.find((m) => m.id === root.id)).toMatchObject({ mediaType: 'CAROUSEL_ALBUM', mediaSha256: [sha(JPEG(80)), sha(JPEG(81))] });
      const c = published(await post(adapter, ctx, account, '<p>first comment</p>', { replyTo: { id: root.id, rootId: root.id } }));
      expect(sim.lookup(c.id)).toEqual({ text: 'first comment', replyTo: root.id, mediaSha256: [] });
    });
  });

  it('findRecent with replyTo lists the account’s own comments on the first item, not another account’s, reading past a page', async () => {
    await withMeta({}, async (sim, ctx, server) => {
      const account = await connect(sim, ctx);
      const pic = image('rc');
      addMedia(ctx, server, pic, JPEG(90));
      const root = published(await post(adapter, ctx, account, '<p>root</p>', { media: [pic], settings: { post_type: 'post' } }));
      const since = new Date(Date.now() - 1000);
      const mine = published(await post(adapter, ctx, account, '<p>first comment</p>', { replyTo: { id: root.id, rootId: root.id } }));
      const copy = sim.addComment({ parentId: root.id, message: 'first comment', from: '17841499999999999', name: 'someone.else' });
      for (let i = 0; i < 55; i++) sim.addComment({ parentId: root.id, message: `nice ${i}`, from: '17841499999999999', name: 'someone.else' });

      const recent = await adapter.findRecent!({ since, limit: 50, replyTo: { id: root.id, rootId: root.id } }, { ...ctx, credentials: account.credentials });
      expect(recent.map((r) => [r.id, r.content, r.url])).toEqual([[mine.id, 'first comment', mine.url]]);
      expect(recent.map((r) => r.id)).not.toContain(copy.id);
      const reads = sim.log.filter((l) => l.method === 'GET' && l.path.startsWith(`/v23.0/${root.id}/comments`));
      expect(reads).toHaveLength(2);
      expect(reads.map((l) => l.headers.authorization)).toEqual([`Bearer ${account.credentials.accessToken as string}`, `Bearer ${account.credentials.accessToken as string}`]);
    });
  });
});
