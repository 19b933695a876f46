import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { callbackUrl, platformApi, PUBLIC_URL, sha, type Uploaded } from '../../../test/platform-api-kit.js';
import { TIKTOK_API_ORIGIN, TIKTOK_UPLOAD_ORIGIN, TIKTOK_WWW_ORIGIN, type TiktokSimulator } from './tiktok.simulator.js';
import { ADA, APP, DIRECT, paddedMp4, tiktokSimulator } from './tiktok.testkit.js';

/**
 * TikTok end to end through the HTTP API of a real app and its worker, against the simulator:
 * connecting (GET /social/tiktok → TikTok's page → the callback), uploading media, posting with
 * the reference's settings, the worker publishing (a chunked video polled until TikTok is done,
 * pictures TikTok pulls from PUBLIC_URL), the `missing` flow of inbox uploads, creator_info
 * refusals, analytics, the creatorInfo tool and a token renewed on the way.
 */

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/media');

const api = platformApi('tiktok');
let sim: TiktokSimulator;
let channel: string;

beforeAll(async () => {
  // TikTok reads pictures from PUBLIC_URL/media/…, a prefix verified for the app; the simulator
  // reaches it where the app really listens (set below, once it listens).
  sim = await tiktokSimulator({ processingPolls: 2, rateLimits: { init: 100, creator_info: 100, status: 300 } });
  sim.apps.get(APP.clientKey)!.verifiedPrefixes = [`${PUBLIC_URL}/media/`];
  sim.apps.get(APP.clientKey)!.redirectUris = [callbackUrl('tiktok')];
  await api.start({
    env: {
      PUBLIC_URL,
      PLATFORM_ORIGINS: [TIKTOK_WWW_ORIGIN, TIKTOK_API_ORIGIN, TIKTOK_UPLOAD_ORIGIN].map((o) => `${o}=${sim.origin}`).join(','),
      TIKTOK_CLIENT_ID: APP.clientKey,
      TIKTOK_CLIENT_SECRET: APP.clientSecret,
      MEDIA_MAX_VIDEO_BYTES: String(64 * 1024 * 1024),
    },
  });
  sim.mediaOrigins.set(PUBLIC_URL, await api.listen());
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

const fixture = (file: string) => readFile(join(FIXTURES, file));
const createPost = (content: string, media: Uploaded[], settings: Record<string, unknown>) => api.createPost(channel, settings, [{ content, image: media.map((m) => ({ id: m.id, path: m.path })) }]);
/** Makes the post (201) and waits until it is PUBLISHED or ERROR. */
const publish = async (content: string, media: Uploaded[], settings: Record<string, unknown>) => api.settle(api.postIdOf(await createPost(content, media, settings)));

describe('tiktok through the API', () => {
  it('connects: GET /social/tiktok → TikTok’s page (client key, hex PKCE) → the callback stores the channel', async () => {
    const { url } = await api.connectThroughOAuth();
    expect(url.href.startsWith(`${sim.origin}/v2/auth/authorize/?client_key=${APP.clientKey}`)).toBe(true);
    expect(url.searchParams.get('code_challenge')).toMatch(/^[0-9a-f]{64}$/);

    const rows = await api.storedChannels();
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row).toMatchObject({ identifier: 'tiktok', internalId: ADA.openId, name: ADA.displayName, profile: ADA.username, picture: ADA.avatarUrl });
    expect(row!.tokenExpiresAt!.getTime() - Date.now()).toBeGreaterThan(23 * 3600_000);
    const creds = await api.openCredentials<Record<string, string>>(row!.id);
    expect(creds).toMatchObject({ openId: ADA.openId, username: ADA.username, accessToken: expect.stringMatching(/^act\./) as unknown, refreshToken: expect.stringMatching(/^rft\./) as unknown });
    expect(row!.credentials).not.toContain(creds.accessToken);
    channel = row!.id;
  });

  it('a video in several 10 MiB chunks, polled until TikTok publishes it: PUBLISHED with the exact id and URL, bytes exact', async () => {
    const bytes = paddedMp4(await fixture('h264-aac-faststart.mp4'), 21 * 1024 * 1024 + 12_345);
    const video = await api.upload(bytes, 'bread.mp4');
    const before = sim.log.length;
    const post = await publish('<p>Sourdough in 60 seconds <strong>#bread</strong></p>', [video], { ...DIRECT, duet: true, video_made_with_ai: true, title: 'ignored for videos' });
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    const made = sim.posts.at(-1)!;
    expect(post.releaseId).toBe(made.id);
    expect(post.releaseURL).toBe(`https://www.tiktok.com/@${ADA.username}/video/${made.id}`);
    expect(made.mediaSha256).toEqual([video.sha256]);
    expect(made.caption).toBe('Sourdough in 60 seconds #bread');
    expect(made.postInfo).toMatchObject({ privacy_level: 'PUBLIC_TO_EVERYONE', disable_duet: false, disable_comment: false, disable_stitch: true, is_aigc: true });
    const calls = sim.log.slice(before);
    expect(calls.filter((c) => c.path === '/v2/post/publish/video/init/').map((c) => (c.body as { source_info: unknown }).source_info)).toEqual([
      { source: 'FILE_UPLOAD', video_size: bytes.length, chunk_size: 10 * 1024 * 1024, total_chunk_count: 2 },
    ]);
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.headers['content-range'])).toEqual([`bytes 0-${10 * 1024 * 1024 - 1}/${bytes.length}`, `bytes ${10 * 1024 * 1024}-${bytes.length - 1}/${bytes.length}`]);
    // Processing took several status reads (two PROCESSING, then PUBLISH_COMPLETE).
    expect(calls.filter((c) => c.path === '/v2/post/publish/status/fetch/').length).toBeGreaterThanOrEqual(3);
    expect(calls.filter((c) => c.path === '/v2/post/publish/creator_info/query/')).toHaveLength(1);
  });

  it('pictures: TikTok pulls them from PUBLIC_URL/media/…, byte for byte, with the photo settings', async () => {
    const jpeg = await api.upload(await fixture('photo-64x48.jpg'), 'one.jpg');
    const webp = await api.upload(await fixture('photo-80x60.webp'), 'two.webp');
    expect(jpeg.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
    const post = await publish('<p>Two pictures</p>', [jpeg, webp], { ...DIRECT, title: 'Holiday', autoAddMusic: 'yes' });
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    const made = sim.posts.at(-1)!;
    expect(post.releaseURL).toBe(`https://www.tiktok.com/@${ADA.username}/photo/${made.id}`);
    expect(made.mediaSha256).toEqual([jpeg.sha256, webp.sha256]);
    expect({ title: made.title, description: made.description }).toEqual({ title: 'Holiday', description: 'Two pictures' });
    const init = sim.log.filter((c) => c.path === '/v2/post/publish/content/init/').at(-1)!;
    expect(init.body).toMatchObject({ post_mode: 'DIRECT_POST', media_type: 'PHOTO', source_info: { source: 'PULL_FROM_URL', photo_images: [jpeg.path, webp.path] }, post_info: { auto_add_music: true } });
  });

  it('a PNG (TikTok refuses PNG) is pulled as its JPEG rendition: the same picture, the same size', async () => {
    const pngBytes = await fixture('photo-48x64.png');
    const png = await api.upload(pngBytes, 'pic.png');
    const post = await publish('<p>A png</p>', [png], DIRECT);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    const init = sim.log.filter((c) => c.path === '/v2/post/publish/content/init/').at(-1)!;
    expect(init.body).toMatchObject({ source_info: { source: 'PULL_FROM_URL', photo_images: [`${png.path}.jpg`] } });
    const served = await api.t.app.inject({ method: 'GET', url: new URL(`${png.path}.jpg`).pathname });
    expect([served.statusCode, served.headers['content-type']]).toEqual([200, 'image/jpeg']);
    const jpeg = served.rawPayload;
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(sim.posts.at(-1)!.mediaSha256).toEqual([sha(jpeg)]);
    const [before, after] = await Promise.all([sharp(pngBytes).metadata(), sharp(jpeg).metadata()]);
    expect([after.format, after.width, after.height]).toEqual(['jpeg', before.width, before.height]);
  });

  it('refuses at creation what TikTok cannot take, naming the field', async () => {
    const gif = await api.upload(await fixture('still-32x24.gif'), 'pic.gif');
    const err = expectError(await createPost('a gif', [gif], DIRECT), 400, 'VALIDATION_FAILED');
    expect(err.fields!.map((f) => f.path)).toEqual(['posts.0.value.0.image.0']);
    expect(err.fields![0]!.message).toContain('image/jpeg, image/webp, image/png, which it fetches as stored');
    const jpeg = await api.upload(await fixture('photo-64x48.jpg'), 'brand.jpg');
    const branded = expectError(await createPost('paid', [jpeg], { ...DIRECT, brand_content_toggle: true, privacy_level: 'SELF_ONLY' }), 400, 'VALIDATION_FAILED');
    expect(branded.fields!.map((f) => f.path)).toEqual(['posts.0.settings.brand_content_toggle']);
    const text = expectError(await createPost('words only', [], DIRECT), 400, 'VALIDATION_FAILED');
    expect(text.fields!.map((f) => f.path)).toEqual(['posts.0.value.0.image']);
  });

  it('what creator_info forbids ends the post ERROR naming the setting, and nothing reaches TikTok', async () => {
    sim.setCreator(ADA.openId, { commentDisabled: true, privacyLevelOptions: ['FOLLOWER_OF_CREATOR', 'SELF_ONLY'] });
    try {
      const jpeg = await api.upload(await fixture('photo-64x48.jpg'), 'c.jpg');
      const tasks = sim.tasks.size;
      const post = await publish('comments please', [jpeg], DIRECT);
      expect(post.state).toBe('ERROR');
      expect(post.error).toBe(
        'Tiktok (Ada Lovelace) refused the post: settings.privacy_level: this TikTok account offers FOLLOWER_OF_CREATOR, SELF_ONLY (creator_info), not PUBLIC_TO_EVERYONE; settings.comment: this TikTok account has comments turned off: set comment to false',
      );
      expect(sim.tasks.size).toBe(tasks);
    } finally {
      sim.setCreator(ADA.openId, { commentDisabled: false, privacyLevelOptions: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'] });
    }
  });

  it('an inbox upload ends PUBLISHED `missing`; /missing lists the creator’s posts and /release-id attaches the real one', async () => {
    const video = await api.upload(await fixture('h264-aac-faststart.mp4'), 'inbox.mp4');
    const post = await publish('for my inbox', [video], { ...DIRECT, content_posting_method: 'UPLOAD' });
    expect({ state: post.state, releaseId: post.releaseId, releaseURL: post.releaseURL, error: post.error }).toEqual({ state: 'PUBLISHED', releaseId: 'missing', releaseURL: null, error: null });
    const task = [...sim.tasks.values()].at(-1)!;
    expect({ direct: task.direct, status: task.status }).toEqual({ direct: false, status: 'SEND_TO_USER_INBOX' });
    const notes = (await api.call({ method: 'GET', url: '/public/v1/notifications' })).json<{ notifications: { content: string; link: string | null }[] }>();
    expect(notes.notifications).toContainEqual({ id: expect.any(String), createdAt: expect.any(String), link: null, content: expect.stringContaining(`its id there is not known yet: see GET /posts/${post.id}/missing`) });

    const stats = await api.call({ method: 'GET', url: `/public/v1/analytics/post/${post.id}?date=7` });
    expect(stats.json()).toEqual({ missing: true });

    // The creator finishes the post in the TikTok app; its id is found among the account's recent posts.
    const made = sim.completeInboxPost(task.publishId, { caption: 'for my inbox, edited in the app' });
    const missing = await api.call({ method: 'GET', url: `/public/v1/posts/${post.id}/missing` });
    expect(missing.statusCode, missing.body).toBe(200);
    const body = missing.json<{ ready: boolean; candidates: { id: string; url: string }[] }>();
    expect(body.ready).toBe(true);
    const url = `https://www.tiktok.com/@${ADA.username}/video/${made.id}`;
    expect(body.candidates[0]).toEqual({ id: made.id, url });
    expect(sim.log.filter((c) => c.path.startsWith('/v2/video/list/')).at(-1)!.path).toContain('fields=id,');

    const attached = await api.call({ method: 'PUT', url: `/public/v1/posts/${post.id}/release-id`, payload: { releaseId: made.id, releaseURL: url } });
    expect(attached.statusCode, attached.body).toBe(200);
    expect(await api.getPost(post.id)).toMatchObject({ state: 'PUBLISHED', releaseId: made.id, releaseURL: url });
    sim.setVideoStats(made.id, { view_count: 321, like_count: 12, comment_count: 2, share_count: 1 });
    const figures = await api.call({ method: 'GET', url: `/public/v1/analytics/post/${post.id}?date=7` });
    expect(figures.json<{ label: string; data: { total: number }[] }[]>().map((s) => [s.label, Number(s.data[0]!.total)])).toEqual([
      ['Views', 321],
      ['Likes', 12],
      ['Comments', 2],
      ['Shares', 1],
    ]);
  });

  it('channel analytics and the creatorInfo tool, through an expired token renewed on the way (refresh token rotated)', async () => {
    const old = await api.openCredentials<Record<string, string>>(channel);
    sim.expireAccessTokens();
    const res = await api.call({ method: 'GET', url: `/public/v1/analytics/${channel}?date=7` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ label: string; data: { total: number }[] }[]>().map((s) => [s.label, Number(s.data[0]!.total)])).toEqual([
      ['Followers', 1200],
      ['Following', 80],
      ['Likes', 5400],
      ['Videos', 31],
    ]);
    const renewed = await api.openCredentials<Record<string, string>>(channel);
    expect(renewed.refreshToken).not.toBe(old.refreshToken);
    expect(renewed.accessToken).not.toBe(old.accessToken);
    expect((sim.log.filter((c) => c.path === '/v2/oauth/token/').at(-1)!.body as Record<string, string>).grant_type).toBe('refresh_token');

    const tool = await api.tool(channel, 'creatorInfo');
    expect(tool.statusCode, tool.body).toBe(200);
    expect(tool.json()).toEqual({
      output: expect.objectContaining({ creator_username: ADA.username, privacy_level_options: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'], max_video_post_duration_sec: 600 }) as unknown,
    });
  });
});
