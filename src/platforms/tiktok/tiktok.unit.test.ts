import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oauthConnector, platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import { createManualClock } from '../../lib/clock.js';
import type { PublishResult } from '../platform.js';
import { chunkRange, hexChallenge, MiB, planChunks } from './client.js';
import { DEFAULT_RETRY_AFTER_SECONDS, tiktokError, tiktokTokenError } from './errors.js';
import { createTiktokAdapter, MISSING } from './index.js';
import { tiktokMetadata } from './metadata.js';
import type { PendingPublish } from './publishing.js';
import {
  ADA,
  APP,
  BOB,
  contractView,
  DIRECT,
  MEDIA_ORIGIN,
  mp4Bytes,
  originsFor,
  photo,
  post,
  published,
  rewriteFor,
  settle,
  sha,
  startMediaServer,
  tiktokSimulator,
  video,
  withTiktok,
  type TestCtx,
} from './tiktok.testkit.js';

const OAUTH_APP = { clientId: APP.clientKey, clientSecret: APP.clientSecret };
const adapter = createTiktokAdapter({ app: OAUTH_APP });
/** Chunks of 100 bytes against a simulator whose chunk rules are scaled down alike (TikTok's own are 5–64 MB). */
const small = createTiktokAdapter({ app: OAUTH_APP, chunkBytes: 100 });
const SMALL_RULES = { chunkRules: { minChunk: 100, maxChunk: 640, maxFinalChunk: 1280 } };
const JPEG = readFileSync(join(import.meta.dirname, '../../../test/fixtures/media/photo-64x48.jpg'));
const WEBP = readFileSync(join(import.meta.dirname, '../../../test/fixtures/media/photo-80x60.webp'));
const PNG = readFileSync(join(import.meta.dirname, '../../../test/fixtures/media/photo-48x64.png'));

const connect = oauthConnector(adapter, rewriteFor);
const token = (r: PublishResult) => {
  if (r.status !== 'pending') throw new Error(`expected pending, got ${r.status}`);
  return JSON.parse(r.token) as PendingPublish;
};

// ---------------------------------------------------------------------------------------------
// The shared contract, through the view that supplies what TikTok needs (see contractView).

// TikTok has no replies or comments an app can post (the metadata says `thread.supported: false`
// and post validation refuses thread items), so the contract's thread case cannot apply; the
// adapter's answer to a reply (`unsupported`) is tested below.
const media = await startMediaServer();
const view = contractView(adapter, { id: 'stand-in', path: `${MEDIA_ORIGIN}/stand-in.jpg`, type: 'image', mimeType: 'image/jpeg', size: JPEG.length, width: 64, height: 48 });
runSimulatorContract({
  name: 'tiktok',
  adapter: view,
  // Every TikTok answer carries `error.code`; "ok" is success whatever the status, and a non-ok code is a failure.
  errorsIn200: true,
  // TikTok takes no PNG, so the suite's picture is a JPEG (its metadata says so). The suite writes its
  // picture before calling setup and serves it to us through openMedia; TikTok pulls it from the media server instead.
  host: async () => {
    media.files.set('/stand-in.jpg', JPEG);
    media.files.set('/1.jpg', readFileSync(join(tmpdir(), `tidings-contract-${process.pid}.jpg`)));
    return media;
  },
  start: () => tiktokSimulator({ rateLimits: { init: 1000, creator_info: 1000, status: 1000 } }, media.origin),
  origins: originsFor,
  connect: (sim, ctx) => connect(sim, ctx, view),
});

// ---------------------------------------------------------------------------------------------

describe('tiktok connect and tokens', () => {
  it('authorises with the client key, comma-separated scopes and a HEX PKCE challenge, then reads the user', async () => {
    await withTiktok({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: ADA.openId, name: ADA.displayName, profile: ADA.username, picture: ADA.avatarUrl });
      expect(account.credentials).toMatchObject({ openId: ADA.openId, username: ADA.username, refreshToken: expect.stringMatching(/^rft\./) as unknown });
      expect(account.expiresAt!.getTime() - Date.now()).toBeGreaterThan(23 * 3600_000);
      const q = new URL(sim.log.find((r) => r.path.startsWith('/v2/auth/authorize/'))!.path, 'http://x').searchParams;
      expect(q.get('client_key')).toBe(APP.clientKey);
      expect(q.get('client_id')).toBeNull();
      expect(q.get('scope')).toBe('video.list,user.info.basic,video.publish,video.upload,user.info.profile,user.info.stats');
      expect(q.get('code_challenge')).toMatch(/^[0-9a-f]{64}$/);
      expect(q.get('code_challenge_method')).toBe('S256');
      const tokenCall = sim.log.find((r) => r.path === '/v2/oauth/token/')!;
      const body = tokenCall.body as Record<string, string>;
      expect(body).toMatchObject({ client_key: APP.clientKey, client_secret: APP.clientSecret, grant_type: 'authorization_code' });
      // The verifier sent is the one whose hex SHA-256 the page got.
      expect(createHash('sha256').update(body.code_verifier!).digest('hex')).toBe(q.get('code_challenge'));
    });
  });

  it('re-encodes the RFC 7636 challenge the service makes as hex, the same 32 bytes', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const rfc = createHash('sha256').update(verifier).digest('base64url');
    expect(hexChallenge(rfc)).toBe(createHash('sha256').update(verifier).digest('hex'));
  });

  it('the simulator refuses a code used twice and a wrong verifier, as TikTok does', async () => {
    await withTiktok({}, async (sim, ctx) => {
      const redirectUri = 'http://localhost:3000/integrations/social/tiktok/callback';
      const begun = await adapter.beginConnect!({ state: 's1', redirectUri, codeChallenge: createHash('sha256').update('v'.repeat(50)).digest('base64url') }, ctx);
      const back = new URL((await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' })).headers.get('location')!);
      const code = back.searchParams.get('code')!;
      const wrong = await platformFailure(adapter.completeConnect!({ code, redirectUri, codeVerifier: 'w'.repeat(50) }, ctx));
      expect({ kind: wrong.kind, message: wrong.message }).toEqual({ kind: 'rejected', message: 'Code verifier or code challenge is invalid. (invalid_request)' });
      const reused = await platformFailure(adapter.completeConnect!({ code, redirectUri, codeVerifier: 'v'.repeat(50) }, ctx));
      expect({ kind: reused.kind, code: reused.details.platformCode }).toEqual({ kind: 'rejected', code: 'invalid_grant' });
      // No challenge at all: TikTok's page refuses to start.
      const bare = await fetch(rewriteFor(sim)((await adapter.beginConnect!({ state: 's2', redirectUri }, ctx)).url), { redirect: 'manual' });
      expect(bare.status).toBe(400);
      expect(await bare.text()).toContain('code_challenge');
    });
  });

  it('says which variables to set when the app is not configured', async () => {
    const err = await platformFailure(createTiktokAdapter({}).beginConnect!({ state: 's', redirectUri: 'http://localhost/cb' }, {} as TestCtx));
    expect({ kind: err.kind, message: err.message }).toEqual({
      kind: 'unsupported',
      message: 'TikTok is not configured on this server: set TIKTOK_CLIENT_ID (the client key) and TIKTOK_CLIENT_SECRET',
    });
  });

  it('refresh rotates the refresh token: the old one is dead afterwards, a revoked grant needs a reconnect', async () => {
    await withTiktok({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      const refreshed = await adapter.refresh!(c);
      expect(refreshed.credentials.refreshToken).not.toBe(account.credentials.refreshToken);
      expect(refreshed.credentials.accessToken).not.toBe(account.credentials.accessToken);
      expect(refreshed.credentials).toMatchObject({ openId: ADA.openId, username: ADA.username });
      expect(refreshed.expiresAt!.getTime() - Date.now()).toBeGreaterThan(23 * 3600_000);
      const stale = await platformFailure(adapter.refresh!(c));
      expect({ kind: stale.kind, code: stale.details.platformCode }).toEqual({ kind: 'reconnect_required', code: 'invalid_grant' });
      // The renewed token works.
      const info = (await adapter.runTool!('creatorInfo', {}, { ...ctx, credentials: refreshed.credentials })) as { creator_username: string };
      expect(info.creator_username).toBe(ADA.username);
      sim.revokeAccessTokens();
      expect((await platformFailure(post(adapter, ctx, { ...account, credentials: refreshed.credentials }, 'gone', { media: [photo(ctx, 'p', JPEG)] }))).kind).toBe('auth_expired');
      expect((await platformFailure(adapter.refresh!({ ...ctx, credentials: refreshed.credentials }))).kind).toBe('reconnect_required');
    });
  });

  it('a user who unticked video.publish gets scope_not_authorized: reconnect', async () => {
    await withTiktok({}, async (sim, ctx) => {
      sim.users.get(ADA.openId)!.grants = ['user.info.basic', 'user.info.profile', 'video.upload', 'video.list'];
      const account = await connect(sim, ctx);
      expect(account.credentials.scope).not.toContain('video.publish');
      const err = await platformFailure(post(adapter, ctx, account, 'no scope', { media: [photo(ctx, 'p', JPEG)] }));
      expect({ kind: err.kind, code: err.details.platformCode }).toEqual({ kind: 'reconnect_required', code: 'scope_not_authorized' });
      const stats = await platformFailure(adapter.analytics!(7, { ...ctx, credentials: account.credentials }));
      expect(stats.kind).toBe('reconnect_required');
    });
  });
});

describe('tiktok errors', () => {
  const res = (status: number, code: string, message = 'words', headers: Record<string, string> = {}) => ({ status, headers, body: { data: {}, error: { code, message, log_id: '2026L0G' } } });

  it('reads the code of the envelope, not the status', () => {
    expect(tiktokError(res(200, 'ok', ''))).toBeUndefined();
    expect(tiktokError({ status: 200, headers: {}, body: { data: { x: 1 } } })).toBeUndefined();
    const in200 = tiktokError(res(200, 'spam_risk_text', 'The post text was flagged.'))!;
    expect({ kind: in200.kind, message: in200.message }).toEqual({ kind: 'rejected', message: 'The post text was flagged. (spam_risk_text)' });
  });

  it('maps each TikTok code to one kind, keeping TikTok’s words', () => {
    const kinds = Object.fromEntries(
      (
        [
          [401, 'access_token_invalid'],
          [401, 'scope_not_authorized'],
          [401, 'scope_permission_missed'],
          [429, 'rate_limit_exceeded'],
          [500, 'internal_error'],
          [403, 'spam_risk_too_many_posts'],
          [403, 'spam_risk_user_banned_from_posting'],
          [403, 'reached_active_user_cap'],
          [403, 'unaudited_client_can_only_post_to_private_accounts'],
          [400, 'privacy_level_option_mismatch'],
          [403, 'url_ownership_unverified'],
          [400, 'invalid_params'],
        ] as const
      ).map(([status, code]) => [code, tiktokError(res(status, code))!.kind]),
    );
    expect(kinds).toEqual({
      access_token_invalid: 'auth_expired',
      scope_not_authorized: 'reconnect_required',
      scope_permission_missed: 'reconnect_required',
      rate_limit_exceeded: 'rate_limited',
      internal_error: 'transient',
      spam_risk_too_many_posts: 'rejected',
      spam_risk_user_banned_from_posting: 'rejected',
      reached_active_user_cap: 'rejected',
      unaudited_client_can_only_post_to_private_accounts: 'rejected',
      privacy_level_option_mismatch: 'rejected',
      url_ownership_unverified: 'rejected',
      invalid_params: 'rejected',
    });
    expect(tiktokError(res(403, 'reached_active_user_cap', 'The daily limit of active users was reached.'))!.message).toBe(
      'The daily limit of active users was reached. (reached_active_user_cap) — an unaudited TikTok app may be used by at most 5 posting users a day',
    );
  });

  it('waits the one-minute window on a rate limit, or what a Retry-After says', () => {
    expect(tiktokError(res(429, 'rate_limit_exceeded'))!.details.retryAfterSeconds).toBe(DEFAULT_RETRY_AFTER_SECONDS);
    expect(tiktokError(res(429, 'rate_limit_exceeded', 'x', { 'retry-after': '12' }))!.details.retryAfterSeconds).toBe(12);
    expect(tiktokError({ status: 502, headers: {}, body: '<html>Bad gateway</html>' })!.kind).toBe('transient');
  });

  it('reads the OAuth endpoint’s own shape', () => {
    const oauth = (status: number, error: string) => tiktokTokenError({ status, headers: {}, body: { error, error_description: 'said TikTok', log_id: 'L' } });
    expect(oauth(400, 'invalid_grant')!.kind).toBe('reconnect_required');
    expect(oauth(401, 'invalid_client')!.kind).toBe('rejected');
    expect(oauth(200, 'invalid_request')!.kind).toBe('rejected');
    expect(oauth(503, 'temporarily_unavailable')!.kind).toBe('transient');
    expect(tiktokTokenError({ status: 200, headers: {}, body: { access_token: 'a' } })).toBeUndefined();
  });

  it('the simulator’s real refusals: unaudited app, daily cap, init rate limit, unverified media URL', async () => {
    await withTiktok({ audited: false, dailyPostCap: 2, rateLimits: { init: 3 } }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const pic = photo(ctx, 'p', JPEG);
      const unaudited = await platformFailure(post(adapter, ctx, account, 'public', { media: [pic] }));
      expect({ kind: unaudited.kind, code: unaudited.details.platformCode }).toEqual({ kind: 'rejected', code: 'unaudited_client_can_only_post_to_private_accounts' });
      expect(unaudited.message).toContain('Unaudited clients can only post to private accounts');

      sim.approveAs(BOB.openId);
      const bob = await connect(sim, ctx);
      const privately = { ...DIRECT, privacy_level: 'SELF_ONLY' };
      expect((await post(adapter, ctx, bob, 'one', { media: [pic], settings: privately })).status).toBe('pending');
      expect((await post(adapter, ctx, bob, 'two', { media: [pic], settings: privately })).status).toBe('pending');
      const cap = await platformFailure(post(adapter, ctx, bob, 'three', { media: [pic], settings: privately }));
      expect({ kind: cap.kind, code: cap.details.platformCode, message: cap.message }).toEqual({
        kind: 'rejected',
        code: 'spam_risk_too_many_posts',
        message: 'The daily post cap from the API is reached for the current user. (spam_risk_too_many_posts)',
      });
      const limited = await platformFailure(post(adapter, ctx, bob, 'four', { media: [pic], settings: privately }));
      expect({ kind: limited.kind, wait: limited.details.retryAfterSeconds }).toEqual({ kind: 'rate_limited', wait: 60 });

      sim.apps.get(APP.clientKey)!.verifiedPrefixes = ['https://cdn.elsewhere.example/'];
      const unverified = await platformFailure(post(adapter, ctx, account, 'elsewhere', { media: [pic], settings: { ...DIRECT, content_posting_method: 'UPLOAD' } }));
      expect({ kind: unverified.kind, code: unverified.details.platformCode }).toEqual({ kind: 'rejected', code: 'url_ownership_unverified' });
      expect(unverified.message).toContain('PUBLIC_URL');
    });
  });
});

describe('tiktok creator_info and validation', () => {
  it('refuses, naming the setting, what creator_info does not allow — before anything is initialised', async () => {
    await withTiktok({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.setCreator(ADA.openId, { privacyLevelOptions: ['FOLLOWER_OF_CREATOR', 'SELF_ONLY'], commentDisabled: true, duetDisabled: true, stitchDisabled: true, maxVideoPostDurationSec: 60 });
      const v = video(ctx, 'v', mp4Bytes(50), 75);
      const err = await platformFailure(post(adapter, ctx, account, 'clip', { media: [v], settings: { ...DIRECT, duet: true, stitch: true } }));
      expect(err.kind).toBe('rejected');
      expect(err.message.split('; ')).toEqual([
        'settings.privacy_level: this TikTok account offers FOLLOWER_OF_CREATOR, SELF_ONLY (creator_info), not PUBLIC_TO_EVERYONE',
        'settings.comment: this TikTok account has comments turned off: set comment to false',
        'settings.duet: this TikTok account has duets turned off: set duet to false',
        'settings.stitch: this TikTok account has stitches turned off: set stitch to false',
        'value.0.image.0: the video lasts 75 s, longer than the 60 s this TikTok account may post (max_video_post_duration_sec)',
      ]);
      // Photos have no duets or stitches.
      const photos = await platformFailure(post(adapter, ctx, account, 'pics', { media: [photo(ctx, 'p', JPEG)], settings: { ...DIRECT, privacy_level: 'SELF_ONLY', duet: true, stitch: true } }));
      expect(photos.message).toBe('settings.comment: this TikTok account has comments turned off: set comment to false');
      expect(sim.tasks.size).toBe(0);
      expect(sim.log.filter((r) => r.path.includes('/init/'))).toHaveLength(0);
      // Inbox uploads ignore those settings and read no creator_info.
      const before = sim.log.length;
      expect((await post(adapter, ctx, account, 'inbox', { media: [v], settings: { ...DIRECT, content_posting_method: 'UPLOAD' } })).status).toBe('pending');
      expect(sim.log.slice(before).map((r) => r.path)).toEqual(['/v2/post/publish/inbox/video/init/']);
    });
  });

  it('validate: branded content kept private, long captions (picture types and sizes are pulled rules of the metadata)', () => {
    const img = (mimeType: string, size = 1000) => ({ type: 'image' as const, mimeType, size });
    const check = (media: { type: 'image' | 'video'; mimeType: string; size: number }[], settings: Record<string, unknown> = DIRECT, content = 'caption') =>
      adapter.validate({ settings, items: [{ content, media }] }).map((i) => `${i.path} ${i.code}`);
    expect(check([img('image/jpeg'), img('image/webp')])).toEqual([]);
    expect(check([img('image/jpeg')], { ...DIRECT, brand_content_toggle: true, privacy_level: 'SELF_ONLY' })).toEqual(['settings.brand_content_toggle branded_content_private']);
    expect(check([img('image/jpeg')], { ...DIRECT, brand_content_toggle: true, privacy_level: 'SELF_ONLY', content_posting_method: 'UPLOAD' })).toEqual([]);
    const vid = { type: 'video' as const, mimeType: 'video/mp4', size: 100 };
    expect(check([vid], DIRECT, `<p>${'a'.repeat(2201)}</p>`)).toEqual(['value.0.content too_long']);
    expect(check([img('image/jpeg')], DIRECT, `<p>${'a'.repeat(2201)}</p>`)).toEqual([]);
    // The generic check refuses other picture types and sizes up front; a PNG goes as its JPEG rendition.
    expect(tiktokMetadata.media.image).toMatchObject({ mimeTypes: ['image/jpeg', 'image/webp', 'image/png'], platformTypes: ['image/jpeg', 'image/webp'], maxBytes: 20 * MiB, pulled: true });
  });

  it('the creatorInfo tool answers what TikTok allows now; replies are unsupported', async () => {
    await withTiktok({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      expect(await adapter.runTool!('creatorInfo', {}, c)).toEqual({
        creator_avatar_url: ADA.avatarUrl,
        creator_username: ADA.username,
        creator_nickname: ADA.displayName,
        privacy_level_options: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
        comment_disabled: false,
        duet_disabled: false,
        stitch_disabled: false,
        max_video_post_duration_sec: 600,
      });
      expect((await platformFailure(adapter.runTool!('boards', {}, c))).kind).toBe('unsupported');
      const reply = await platformFailure(adapter.publish({ item: { content: 'x', media: [] }, settings: DIRECT, replyTo: { id: '1', rootId: '1' }, idempotencyKey: 'r' }, c));
      expect(reply.kind).toBe('unsupported');
      expect((await platformFailure(post(adapter, ctx, account, 'just words'))).message).toBe('TikTok posts need a video or pictures; text alone cannot be posted');
    });
  });
});

describe('tiktok videos (chunked FILE_UPLOAD)', () => {
  it('plans chunks within TikTok’s rules', () => {
    expect(planChunks(4 * MiB)).toEqual({ chunkSize: 4 * MiB, count: 1 });
    expect(planChunks(19 * MiB)).toEqual({ chunkSize: 19 * MiB, count: 1 });
    expect(planChunks(25 * MiB)).toEqual({ chunkSize: 10 * MiB, count: 2 });
    const big = 4 * 1024 * MiB - 1;
    const plan = planChunks(big);
    expect(plan.count).toBe(409);
    const last = chunkRange(plan.count - 1, plan, big);
    expect(last.last).toBe(big - 1);
    expect(last.last - last.first + 1).toBeLessThan(20 * MiB);
    expect(chunkRange(1, planChunks(25 * MiB), 25 * MiB)).toEqual({ first: 10 * MiB, last: 25 * MiB - 1 });
  });

  it('initialises, then sends one chunk per check with Content-Range, then polls until the exact public id', async () => {
    await withTiktok({ ...SMALL_RULES, processingPolls: 2 }, async (sim, ctx) => {
      const account = await connect(sim, ctx, small);
      const bytes = mp4Bytes(350);
      const first = await post(small, ctx, account, '<p>Sourdough in <strong>60</strong> seconds #bread</p>', {
        media: [video(ctx, 'v', bytes)],
        settings: { ...DIRECT, duet: true, stitch: false, comment: false, brand_organic_toggle: true, video_made_with_ai: true },
      });
      expect(first).toMatchObject({ status: 'pending', pollAfterMs: 0 });
      const t = token(first);
      expect(t).toMatchObject({ kind: 'video', mode: 'DIRECT_POST', username: ADA.username, upload: { size: 350, chunkSize: 100, chunks: 3, next: 0 } });
      const init = sim.log.find((r) => r.path === '/v2/post/publish/video/init/')!;
      expect(init.body).toEqual({
        post_info: {
          title: 'Sourdough in 60 seconds #bread',
          privacy_level: 'PUBLIC_TO_EVERYONE',
          disable_duet: false,
          disable_comment: true,
          disable_stitch: true,
          brand_content_toggle: false,
          brand_organic_toggle: true,
          is_aigc: true,
        },
        source_info: { source: 'FILE_UPLOAD', video_size: 350, chunk_size: 100, total_chunk_count: 3 },
      });
      expect(sim.chunks).toHaveLength(0);

      const c = { ...ctx, credentials: account.credentials };
      const steps: PublishResult[] = [];
      let r: PublishResult = first;
      while (r.status === 'pending') {
        r = await small.checkPublish!(r.token, c);
        steps.push(r);
      }
      // Three chunks (the next one at once), then two PROCESSING reads, then PUBLISH_COMPLETE.
      expect(steps.map((s) => (s.status === 'pending' ? `pending:${s.pollAfterMs ?? '-'}` : s.status))).toEqual(['pending:0', 'pending:0', 'pending:-', 'pending:-', 'pending:-', 'published']);
      const puts = sim.log.filter((l) => l.method === 'PUT');
      expect(puts.map((p) => p.headers['content-range'])).toEqual(['bytes 0-99/350', 'bytes 100-199/350', 'bytes 200-349/350']);
      expect(puts.every((p) => p.headers['content-type'] === 'video/mp4' && p.headers.authorization === undefined)).toBe(true);
      expect(sim.chunks.map((x) => x.status)).toEqual([206, 206, 201]);
      const done = published(r);
      // The status carries the id as a bare int64, which JSON numbers cannot hold: the exact one comes from the video list.
      const raw = sim.log.filter((l) => l.path === '/v2/post/publish/status/fetch/');
      expect(raw.length).toBe(3);
      expect(sim.posts).toHaveLength(1);
      expect(Number.isSafeInteger(Number(sim.posts[0]!.id))).toBe(false);
      expect(done).toEqual({ status: 'published', id: sim.posts[0]!.id, url: `https://www.tiktok.com/@${ADA.username}/video/${sim.posts[0]!.id}` });
      expect(sim.lookup(done.id)).toEqual({ text: 'Sourdough in 60 seconds #bread', mediaSha256: [sha(bytes)] });
      expect(sim.tasks.size).toBe(1);
    });
  });

  it('a chunk whose PUT fails is sent again with the same token; the initialisation is never repeated', async () => {
    await withTiktok(SMALL_RULES, async (sim, ctx) => {
      const account = await connect(sim, ctx, small);
      const bytes = mp4Bytes(250, 3);
      const c = { ...ctx, credentials: account.credentials };
      const afterInit = await post(small, ctx, account, 'retry me', { media: [video(ctx, 'v', bytes)] });
      const afterFirst = await small.checkPublish!((afterInit as { token: string }).token, c);
      sim.inject({ path: /^\/video\//, status: 500, body: { data: {}, error: { code: 'internal_error', message: 'Upload failed', log_id: 'L' } } });
      const err = await platformFailure(small.checkPublish!((afterFirst as { token: string }).token, c));
      expect(err.kind).toBe('transient');
      // The publisher checks again later with the token it holds.
      const { result } = await settle(small, ctx, account, afterFirst);
      expect(sim.lookup(published(result).id)?.mediaSha256).toEqual([sha(bytes)]);
      expect(sim.log.filter((l) => l.path.includes('/init/'))).toHaveLength(1);
      // The refused PUT never reached the upload (the 500 came first); the chunk went again.
      expect(sim.chunks.map((x) => `${x.first}:${x.status}`)).toEqual(['0:206', '100:201']);
      expect(sim.log.filter((l) => l.method === 'PUT').map((l) => l.headers['content-range'])).toEqual(['bytes 0-99/250', 'bytes 100-249/250', 'bytes 100-249/250']);
    });
  });

  it('a chunk that arrived but whose answer was lost: resent if TikTok still takes it, skipped once the upload is complete', async () => {
    await withTiktok(SMALL_RULES, async (sim, ctx) => {
      const account = await connect(sim, ctx, small);
      const bytes = mp4Bytes(200, 5);
      const c = { ...ctx, credentials: account.credentials };
      const init = await post(small, ctx, account, 'lost answers', { media: [video(ctx, 'v', bytes)] });
      const t0 = (init as { token: string }).token;
      // Chunk 0 sent twice from the same token (the first answer never stored): TikTok overwrites it.
      const a = await small.checkPublish!(t0, c);
      const b = await small.checkPublish!(t0, c);
      expect(a).toEqual(b);
      const t1 = (b as { token: string }).token;
      // The last chunk twice: the second time the upload is complete, the status says so, and it moves on.
      const last = await small.checkPublish!(t1, c);
      const again = await small.checkPublish!(t1, c);
      expect(again).toEqual(last);
      expect(sim.chunks.map((x) => x.status)).toEqual([206, 206, 201, 400]);
      const { result } = await settle(small, ctx, account, again);
      expect(sim.lookup(published(result).id)?.mediaSha256).toEqual([sha(bytes)]);
      expect(sim.posts).toHaveLength(1);
      expect(sim.tasks.size).toBe(1);
    });
  });

  it('a status read that fails is simply read again; processing that fails ends rejected with TikTok’s reason', async () => {
    await withTiktok({ ...SMALL_RULES, processingPolls: 1 }, async (sim, ctx) => {
      const account = await connect(sim, ctx, small);
      const c = { ...ctx, credentials: account.credentials };
      let r = await post(small, ctx, account, 'status blips', { media: [video(ctx, 'v', mp4Bytes(120))] });
      r = await small.checkPublish!((r as { token: string }).token, c);
      sim.inject({ path: /status\/fetch/, status: 500, body: { data: {}, error: { code: 'internal_error', message: 'busy', log_id: 'L' } } });
      expect((await platformFailure(small.checkPublish!((r as { token: string }).token, c))).kind).toBe('transient');
      const { result } = await settle(small, ctx, account, r);
      expect(published(result).id).toBe(sim.posts[0]!.id);

      sim.failNextPublish('duration_check_failed');
      const failing = await post(small, ctx, account, 'too short', { media: [video(ctx, 'w', mp4Bytes(120, 9))] });
      const err = await platformFailure(settle(small, ctx, account, failing));
      expect({ kind: err.kind, message: err.message, code: err.details.platformCode }).toEqual({
        kind: 'rejected',
        message: 'TikTok could not publish the post: duration_check_failed',
        code: 'duration_check_failed',
      });
      // Checking the failed task again answers the same.
      expect(sim.posts).toHaveLength(1);
      const notVideo = await post(small, ctx, account, 'not a video', { media: [video(ctx, 'x', Buffer.alloc(150, 7))] });
      expect((await platformFailure(settle(small, ctx, account, notVideo))).message).toBe('TikTok could not publish the post: file_format_check_failed');
    });
  });

  it('streams each chunk from the stored Blob, never reading the file whole', async () => {
    class StreamOnlyBlob extends Blob {
      override arrayBuffer(): Promise<ArrayBuffer> {
        return Promise.reject(new Error('the stored file was read whole'));
      }
      override text(): Promise<string> {
        return Promise.reject(new Error('the stored file was read whole'));
      }
    }
    await withTiktok(SMALL_RULES, async (sim, ctx) => {
      const account = await connect(sim, ctx, small);
      const bytes = mp4Bytes(330, 2);
      const v = video(ctx, 'v', bytes);
      ctx.media.set('v', new StreamOnlyBlob([bytes], { type: 'video/mp4' }));
      const { result } = await settle(small, ctx, account, await post(small, ctx, account, 'streamed', { media: [v] }));
      expect(sim.lookup(published(result).id)?.mediaSha256).toEqual([sha(bytes)]);
    });
  });

  it('an inbox upload TikTok cannot process ends rejected with its reason', async () => {
    await withTiktok(SMALL_RULES, async (sim, ctx) => {
      const account = await connect(sim, ctx, small);
      sim.failNextPublish('frame_rate_check_failed');
      const first = await post(small, ctx, account, 'bad frames', { media: [video(ctx, 'v', mp4Bytes(140))], settings: { ...DIRECT, content_posting_method: 'UPLOAD' } });
      const err = await platformFailure(settle(small, ctx, account, first));
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'rejected', message: 'TikTok could not publish the post: frame_rate_check_failed' });
    });
  });

  it('an inbox upload ends `missing`; once the creator posts it, findRecent lists it', async () => {
    await withTiktok(SMALL_RULES, async (sim, ctx) => {
      const account = await connect(sim, ctx, small);
      const bytes = mp4Bytes(130, 4);
      const first = await post(small, ctx, account, '<p>for the inbox</p>', { media: [video(ctx, 'v', bytes)], settings: { ...DIRECT, content_posting_method: 'UPLOAD' } });
      expect(sim.log.find((r) => r.path === '/v2/post/publish/inbox/video/init/')!.body).toEqual({ source_info: { source: 'FILE_UPLOAD', video_size: 130, chunk_size: 130, total_chunk_count: 1 } });
      const { result } = await settle(small, ctx, account, first);
      expect(result).toEqual({ status: 'published', id: MISSING, url: '' });
      const task = [...sim.tasks.values()][0]!;
      expect(task.status).toBe('SEND_TO_USER_INBOX');
      const c = { ...ctx, credentials: account.credentials };
      expect(await small.findRecent!({ since: new Date(Date.now() - 60_000), limit: 20 }, c)).toEqual([]);
      const posted = sim.completeInboxPost(task.publishId, { caption: 'posted from the app' });
      expect(await small.findRecent!({ since: new Date(Date.now() - 60_000), limit: 20 }, c)).toEqual([
        { id: posted.id, url: `https://www.tiktok.com/@${ADA.username}/video/${posted.id}`, content: 'posted from the app', createdAt: expect.any(String) as unknown },
      ]);
    });
  });
});

describe('tiktok photos (PULL_FROM_URL)', () => {
  it('sends the public URLs with the settings mapped, and TikTok pulls the exact bytes', async () => {
    await withTiktok({ processingPolls: 1 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const pics = [photo(ctx, 'a', JPEG), photo(ctx, 'b', WEBP, 'image/webp')];
      const first = await post(adapter, ctx, account, '<p>Two <em>pictures</em></p>', {
        media: pics,
        settings: { ...DIRECT, title: 'Holiday', autoAddMusic: 'yes', comment: false, duet: true, brand_content_toggle: true },
      });
      expect(first.status).toBe('pending');
      expect(sim.log.find((r) => r.path === '/v2/post/publish/content/init/')!.body).toEqual({
        media_type: 'PHOTO',
        post_mode: 'DIRECT_POST',
        post_info: { title: 'Holiday', description: 'Two pictures', privacy_level: 'PUBLIC_TO_EVERYONE', disable_comment: true, auto_add_music: true, brand_content_toggle: true, brand_organic_toggle: false },
        source_info: { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: [`${MEDIA_ORIGIN}/a.jpeg`, `${MEDIA_ORIGIN}/b.webp`] },
      });
      const { result, checks } = await settle(adapter, ctx, account, first);
      expect(checks).toBeGreaterThanOrEqual(2);
      const done = published(result);
      expect(done.url).toBe(`https://www.tiktok.com/@${ADA.username}/photo/${done.id}`);
      expect(sim.lookup(done.id)).toEqual({ text: 'Two pictures', mediaSha256: [sha(JPEG), sha(WEBP)] });
    });
  });

  it('inbox photos go as MEDIA_UPLOAD with title and description only', async () => {
    await withTiktok({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const first = await post(adapter, ctx, account, 'draft me', { media: [photo(ctx, 'a', JPEG)], settings: { ...DIRECT, content_posting_method: 'UPLOAD', title: 'T' } });
      expect(sim.log.find((r) => r.path === '/v2/post/publish/content/init/')!.body).toMatchObject({ post_mode: 'MEDIA_UPLOAD', post_info: { title: 'T', description: 'draft me' } });
      expect((await settle(adapter, ctx, account, first)).result).toEqual({ status: 'published', id: MISSING, url: '' });
    });
  });

  it('a status read that fails is read again with the same token: one task, one post', async () => {
    await withTiktok({ processingPolls: 2 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const first = await post(adapter, ctx, account, 'blip', { media: [photo(ctx, 'a', JPEG)] });
      sim.inject({ path: /status\/fetch/, status: 503, body: { data: {}, error: { code: 'internal_error', message: 'Service busy', log_id: 'L' } } });
      const err = await platformFailure(adapter.checkPublish!((first as { token: string }).token, { ...ctx, credentials: account.credentials }));
      expect(err.kind).toBe('transient');
      const { result } = await settle(adapter, ctx, account, first);
      expect(published(result).id).toBe(sim.posts[0]!.id);
      expect({ inits: sim.log.filter((l) => l.path.includes('/init/')).length, tasks: sim.tasks.size, posts: sim.posts.length }).toEqual({ inits: 1, tasks: 1, posts: 1 });
    });
  });

  it('a PNG or an unreachable picture fails with TikTok’s reason', async () => {
    await withTiktok({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const png = await post(adapter, ctx, account, 'png', { media: [photo(ctx, 'p', PNG, 'image/png')] });
      expect((await platformFailure(settle(adapter, ctx, account, png))).message).toBe('TikTok could not publish the post: file_format_check_failed');
      const gone = { ...photo(ctx, 'g', JPEG), path: `${MEDIA_ORIGIN}/nowhere.jpeg` };
      const lost = await post(adapter, ctx, account, 'lost', { media: [gone] });
      expect((await platformFailure(settle(adapter, ctx, account, lost))).message).toBe('TikTok could not publish the post: photo_pull_failed');
      expect(sim.posts).toHaveLength(0);
    });
  });
});

describe('tiktok public ids', () => {
  it('a SELF_ONLY post never gets a public id: it ends `missing`', async () => {
    await withTiktok({}, async (_sim, ctx) => {
      const account = await connect(_sim, ctx);
      const first = await post(adapter, ctx, account, 'private', { media: [photo(ctx, 'a', JPEG)], settings: { ...DIRECT, privacy_level: 'SELF_ONLY' } });
      expect((await settle(adapter, ctx, account, first)).result).toEqual({ status: 'published', id: MISSING, url: '' });
    });
  });

  it('waits while moderation runs, then takes the id it gives', async () => {
    await withTiktok({ moderationPolls: 2 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const { result, checks } = await settle(adapter, ctx, account, await post(adapter, ctx, account, 'moderated', { media: [photo(ctx, 'a', JPEG)] }));
      expect(published(result).id).toBe(sim.posts[0]!.id);
      // at least: processing, complete without id twice, then the id
      expect(checks).toBeGreaterThanOrEqual(4);
    });
  });

  it('gives up waiting for the id ten minutes after PUBLISH_COMPLETE: the post ends `missing`', async () => {
    const clock = createManualClock(Date.now());
    await withTiktok({ moderationPolls: 1000, clock }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      let r = await post(adapter, ctx, account, 'stuck in moderation', { media: [photo(ctx, 'b', JPEG)] });
      for (let i = 0; i < 25 && token(r).idWaitSince === undefined; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        r = await adapter.checkPublish!((r as { token: string }).token, c);
      }
      expect(token(r).idWaitSince).toBe(clock.now());
      expect(sim.posts).toHaveLength(1);
      clock.advance(9 * 60_000);
      r = await adapter.checkPublish!((r as { token: string }).token, c);
      expect(r.status).toBe('pending');
      clock.advance(60_000);
      expect(await adapter.checkPublish!((r as { token: string }).token, c)).toEqual({ status: 'published', id: MISSING, url: '' });
    });
  });
});

describe('tiktok ids without video.list', () => {
  it('a published post whose int64 id cannot be looked up (no video.list) ends `missing`, not failed', async () => {
    await withTiktok({}, async (sim, ctx) => {
      sim.users.get(ADA.openId)!.grants = ['user.info.basic', 'user.info.profile', 'video.publish', 'video.upload'];
      const account = await connect(sim, ctx);
      const { result } = await settle(adapter, ctx, account, await post(adapter, ctx, account, 'no list', { media: [photo(ctx, 'a', JPEG)] }));
      expect(result).toEqual({ status: 'published', id: MISSING, url: '' });
      expect(sim.posts).toHaveLength(1);
    });
  });
});

describe('tiktok recent posts and analytics', () => {
  it('findRecent pages newest first with the time cursor and stops at `since`', async () => {
    await withTiktok({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const now = Math.floor(Date.now() / 1000);
      for (let i = 0; i < 25; i++) {
        sim.posts.push({ id: `74000000000000${String(10000 + i)}`, openId: ADA.openId, kind: 'video', publishId: `p${i}`, caption: `video ${i}`, privacy: 'PUBLIC_TO_EVERYONE', postInfo: {}, mediaSha256: [], media: [], createTime: now - (25 - i) * 60, fromInbox: false });
      }
      sim.posts.push({ id: '7400000000000099999', openId: ADA.openId, kind: 'video', publishId: 'private', caption: 'private', privacy: 'SELF_ONLY', postInfo: {}, mediaSha256: [], media: [], createTime: now, fromInbox: false });
      const c = { ...ctx, credentials: account.credentials };
      const all = await adapter.findRecent!({ since: new Date((now - 3600) * 1000), limit: 50 }, c);
      expect(all.map((p) => p.content)).toEqual(Array.from({ length: 25 }, (_, i) => `video ${24 - i}`));
      expect(sim.log.filter((l) => l.path.startsWith('/v2/video/list/'))).toHaveLength(2);
      const recent = await adapter.findRecent!({ since: new Date((now - 5 * 60 - 30) * 1000), limit: 50 }, c);
      expect(recent.map((p) => p.content)).toEqual(['video 24', 'video 23', 'video 22', 'video 21', 'video 20']);
      expect(recent[0]).toEqual({ id: '7400000000000010024', url: `https://www.tiktok.com/@${ADA.username}/video/7400000000000010024`, content: 'video 24', createdAt: new Date((now - 60) * 1000).toISOString() });
      expect(await adapter.findRecent!({ since: new Date(0), limit: 3 }, c)).toHaveLength(3);
    });
  });

  it('account figures from user/info, post figures from video/query', async () => {
    await withTiktok({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const c = { ...ctx, credentials: account.credentials };
      const today = new Date().toISOString().slice(0, 10);
      expect(await adapter.analytics!(7, c)).toEqual([
        { label: 'Followers', percentageChange: 0, data: [{ total: 1200, date: today }] },
        { label: 'Following', percentageChange: 0, data: [{ total: 80, date: today }] },
        { label: 'Likes', percentageChange: 0, data: [{ total: 5400, date: today }] },
        { label: 'Videos', percentageChange: 0, data: [{ total: 31, date: today }] },
      ]);
      expect(sim.log.find((l) => l.path.startsWith('/v2/user/info/?fields=follower_count'))).toBeDefined();
      const { result } = await settle(adapter, ctx, account, await post(adapter, ctx, account, 'stats', { media: [photo(ctx, 'a', JPEG)] }));
      const id = published(result).id;
      sim.setVideoStats(id, { view_count: 900, like_count: 70, comment_count: 5, share_count: 3 });
      expect((await adapter.postAnalytics!(id, 7, c)).map((s) => [s.label, s.data[0]!.total])).toEqual([
        ['Views', 900],
        ['Likes', 70],
        ['Comments', 5],
        ['Shares', 3],
      ]);
      expect(sim.log.find((l) => l.path.startsWith('/v2/video/query/'))!.body).toEqual({ filters: { video_ids: [id] } });
      expect(await adapter.postAnalytics!('7400000000000000001', 7, c)).toEqual([]);
    });
  });
});
