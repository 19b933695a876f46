import { describe, expect, it } from 'vitest';
import { hostingContractPng, oauthConnector, platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import { CONTRACT_PNG } from '../common/media-pull.testkit.js';
import type { ConnectedAccount, PlatformResponse } from '../platform.js';
import { containerError, DEFAULT_RATE_LIMIT_WAIT_SECONDS, PUBLISHING_LIMIT_WAIT_SECONDS, threadsError } from './errors.js';
import { createThreadsAdapter, RENEW_BEFORE_MS } from './index.js';
import { countThreadsText, threadsLinks } from './text.js';
import { threadsMetadata } from './metadata.js';
import type { ThreadsSimulator } from './threads.simulator.js';
import {
  ADA,
  CALLBACK,
  check,
  imageAt,
  MP4,
  pendingToken,
  post,
  published,
  rewriteFor,
  sha,
  startMediaHost,
  THREADS_APP,
  threadsSimulator,
  originsFor,
  videoAt,
  withThreads,
  type MediaHost,
  type TestCtx,
} from './threads.testkit.js';

const adapter = createThreadsAdapter({ app: THREADS_APP });
const connect = oauthConnector(adapter, rewriteFor, { redirectUri: CALLBACK });
const DAY = 86_400_000;

runSimulatorContract({
  name: 'threads',
  adapter,
  errorsIn200: true,
  host: () => hostingContractPng(startMediaHost),
  start: (host: MediaHost) => threadsSimulator(host),
  origins: originsFor,
  connect,
});

const PNG = (n: number) => Buffer.concat([CONTRACT_PNG.subarray(0, 8), Buffer.from(`png-${n}`)]);
const JPEG = (n: number) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(`jpeg-${n}`)]);
const answer = (status: number, error: Record<string, unknown>, headers: Record<string, string> = {}): PlatformResponse => ({
  status,
  headers,
  body: { error: { message: 'msg', type: 'OAuthException', fbtrace_id: 'AbC', ...error } },
});
/** Requests the simulator logged for one Graph edge. */
const calls = (sim: ThreadsSimulator, method: string, re: RegExp) => sim.log.filter((r) => r.method === method && re.test(r.path));

describe("Threads' text counting", () => {
  it('counts graphemes, an emoji as its UTF-8 bytes', () => {
    expect(countThreadsText('Hello')).toBe(5);
    expect(countThreadsText('café')).toBe(4);
    expect(countThreadsText('cafe\u0301')).toBe(4); // é decomposed is still one character
    expect(countThreadsText('日本語')).toBe(3);
    expect(countThreadsText('👍')).toBe(4);
    expect(countThreadsText('👍🏽')).toBe(8);
    expect(countThreadsText('❤️')).toBe(6);
    expect(countThreadsText('🇫🇷')).toBe(8);
    expect(countThreadsText('👩‍💻')).toBe(11);
    expect(countThreadsText('1️⃣')).toBe(7);
    expect(countThreadsText('ok 👍')).toBe(7);
  });

  it('counts distinct links, http(s) and www. alike', () => {
    expect(threadsLinks('see https://a.example/x, www.b.example and https://a.example/x.')).toEqual(['a.example/x', 'www.b.example']);
    expect(threadsLinks('https://www.facebook.com/ and www.facebook.com')).toEqual(['www.facebook.com']);
    expect(threadsLinks('no links here')).toEqual([]);
  });
});

describe('threads validate', () => {
  const text = (content: string) => ({ settings: {}, items: [{ content, media: [] }] });

  it('applies Threads’ own count where emoji push a text past 500', () => {
    // 496 letters and a 4-byte emoji: exactly 500
    expect(adapter.validate(text(`<p>${'a'.repeat(496)}👍</p>`))).toEqual([]);
    // 498 graphemes, but 501 in Threads' count
    const issues = adapter.validate(text(`<p>${'a'.repeat(497)}👍</p>`));
    expect(issues).toEqual([{ path: 'value.0.content', code: 'too_long', message: 'Threads allows 500 characters, an emoji counting as its UTF-8 bytes (👍 is 4); this text counts 501' }]);
    // Past 500 graphemes the generic check speaks (no second issue here).
    expect(adapter.validate(text('a'.repeat(501)))).toEqual([]);
  });

  it('refuses more than five links; pictures are pulled rules of the metadata (the generic check)', () => {
    const links = Array.from({ length: 6 }, (_, i) => `https://l${i}.example`).join(' ');
    const img = (mimeType: string, size = 1000) => ({ type: 'image' as const, mimeType, size });
    const issues = adapter.validate({
      settings: {},
      items: [
        { content: links, media: [] },
        { content: 'pics', media: [img('image/png'), img('image/webp'), img('image/jpeg', 9 * 1024 * 1024), { type: 'video' as const, mimeType: 'video/mp4', size: 5 }] },
      ],
    });
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ['value.0.content', 'too_many_links'],
    ]);
    expect(threadsMetadata.media.image).toMatchObject({ mimeTypes: ['image/jpeg', 'image/png', 'image/webp'], platformTypes: ['image/jpeg', 'image/png'], maxBytes: 8 * 1024 * 1024, pulled: true });
  });
});

describe('threads connect and tokens', () => {
  it('authorises without PKCE, exchanges the code, then the short token for a 60-day one, and reads /me', async () => {
    await withThreads({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      // The id is /me's string: the token answer's numeric user_id is past 2^53 and would be rounded.
      expect(account).toMatchObject({ internalId: ADA.id, name: ADA.name, profile: ADA.username, picture: ADA.picture });
      expect(account.credentials).toMatchObject({ userId: ADA.id, username: ADA.username, accessToken: expect.stringMatching(/^THAA/) });
      const expires = Date.parse(account.credentials.expiresAt as string);
      expect(expires - Date.now()).toBeGreaterThan(59 * DAY);
      // The channel is renewed ten days before its token expires.
      expect(expires - account.expiresAt!.getTime()).toBe(RENEW_BEFORE_MS);

      const authorize = new URL(sim.log.find((r) => r.path.startsWith('/oauth/authorize'))!.path, 'http://x');
      expect(authorize.searchParams.get('scope')).toBe('threads_basic,threads_content_publish,threads_manage_replies,threads_read_replies,threads_manage_insights');
      expect(authorize.searchParams.get('code_challenge')).toBeNull();
      expect(sim.log.find((r) => r.path === '/oauth/access_token')!.body).toMatchObject({
        grant_type: 'authorization_code',
        client_id: THREADS_APP.clientId,
        client_secret: THREADS_APP.clientSecret,
        redirect_uri: CALLBACK,
      });
      const exchange = new URL(sim.log.find((r) => r.path.startsWith('/access_token'))!.path, 'http://x');
      expect(exchange.searchParams.get('grant_type')).toBe('th_exchange_token');
      expect(exchange.searchParams.get('client_secret')).toBe(THREADS_APP.clientSecret);
      expect(sim.tokens.get(exchange.searchParams.get('access_token')!)!.kind).toBe('short');
      expect(sim.tokens.get(account.credentials.accessToken as string)!.kind).toBe('long');
    });
  });

  it('a code works once; a wrong secret is refused with Threads’ words', async () => {
    await withThreads({}, async (sim, ctx) => {
      const begun = await adapter.beginConnect!({ state: 's1', redirectUri: CALLBACK }, ctx);
      const res = await fetch(rewriteFor(sim)(begun.url), { redirect: 'manual' });
      const location = res.headers.get('location')!;
      expect(location.endsWith('#_')).toBe(true);
      const code = new URL(location).searchParams.get('code')!;
      await adapter.completeConnect!({ code, redirectUri: CALLBACK }, ctx);
      const again = await platformFailure(adapter.completeConnect!({ code, redirectUri: CALLBACK }, ctx));
      expect({ kind: again.kind, message: again.message }).toEqual({ kind: 'rejected', message: 'This authorization code has been used.' });
      const wrong = createThreadsAdapter({ app: { ...THREADS_APP, clientSecret: 'nope' } });
      const bad = await platformFailure(wrong.completeConnect!({ code: 'AQxyz', redirectUri: CALLBACK }, ctx));
      expect(bad.message).toContain('Error validating client secret.');
    });
  });

  it('says Threads is not configured when there is no app', async () => {
    const err = await platformFailure(createThreadsAdapter({}).beginConnect!({ state: 's', redirectUri: CALLBACK }, {} as TestCtx));
    expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'unsupported', message: 'Threads is not configured on this server: set THREADS_CLIENT_ID and THREADS_CLIENT_SECRET' });
  });

  it('renews the token with th_refresh_token; a token past its 60 days or revoked cannot be renewed', async () => {
    let offset = 0;
    const now = () => Date.now() + offset;
    await withThreads({ now, clock: { now } }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      offset = 50 * DAY;
      const renewed = await adapter.refresh!({ ...ctx, credentials: account.credentials });
      const call = new URL(sim.log.find((r) => r.path.startsWith('/refresh_access_token'))!.path, 'http://x');
      expect({ grant: call.searchParams.get('grant_type'), token: call.searchParams.get('access_token') }).toEqual({ grant: 'th_refresh_token', token: account.credentials.accessToken });
      expect(renewed.credentials.accessToken).not.toBe(account.credentials.accessToken);
      expect(Date.parse(renewed.credentials.expiresAt as string) - now()).toBeGreaterThan(59 * DAY);
      expect(renewed.expiresAt!.getTime()).toBe(Date.parse(renewed.credentials.expiresAt as string) - RENEW_BEFORE_MS);
      // The renewed token publishes.
      published(await post(adapter, ctx, { ...account, credentials: renewed.credentials }, '<p>after renewal</p>'));

      // The first token runs out (day 61): Threads no longer renews it.
      offset = 61 * DAY;
      const expired = await platformFailure(adapter.refresh!({ ...ctx, credentials: account.credentials }));
      expect({ kind: expired.kind, code: expired.details.platformCode }).toEqual({ kind: 'reconnect_required', code: '190/463' });

      sim.revokeAccessTokens();
      const revoked = await platformFailure(adapter.refresh!({ ...ctx, credentials: renewed.credentials }));
      expect({ kind: revoked.kind, code: revoked.details.platformCode }).toEqual({ kind: 'reconnect_required', code: '190/460' });
    });
  });
});

describe('threads publishing', () => {
  it('a text post: a TEXT container published at once, its permalink read back', async () => {
    await withThreads({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await post(adapter, ctx, account, '<p>Hello <strong>Threads</strong> &amp; friends</p>'));
      const record = sim.posts.find((p) => p.id === r.id)!;
      expect(record).toMatchObject({ text: 'Hello Threads & friends', mediaType: 'TEXT_POST' });
      expect(r.id).toMatch(/^\d{17,18}$/);
      expect(r.url).toBe(`https://www.threads.net/@${ADA.username}/post/${record.shortcode}`);
      const create = calls(sim, 'POST', /^\/v1\.0\/\d+\/threads$/)[0]!;
      expect(create.body).toEqual({ media_type: 'TEXT', text: 'Hello Threads & friends' });
      expect(create.headers.authorization).toBe(`Bearer ${account.credentials.accessToken as string}`);
      expect(create.path).not.toContain('access_token');
      expect(calls(sim, 'POST', /threads_publish$/)[0]!.body).toEqual({ creation_id: record.containerId });
    });
  });

  it('a picture is fetched by Threads from its public URL, with its alt text', async () => {
    await withThreads({}, async (sim, ctx, host) => {
      const account = await connect(sim, ctx);
      const url = host.put('cat.jpg', JPEG(1), 'image/jpeg');
      const r = published(await post(adapter, ctx, account, '<p>A cat</p>', { media: [imageAt(url, 'cat', 'A grey cat')] }));
      const record = sim.posts.find((p) => p.id === r.id)!;
      expect(record).toMatchObject({ mediaType: 'IMAGE', text: 'A cat', altTexts: ['A grey cat'] });
      expect(record.media).toEqual([{ sha256: sha(JPEG(1)), size: JPEG(1).length, mimeType: 'image/jpeg' }]);
      expect(calls(sim, 'POST', /^\/v1\.0\/\d+\/threads$/)[0]!.body).toEqual({ media_type: 'IMAGE', image_url: url, alt_text: 'A grey cat', text: 'A cat' });
      expect(host.log.filter((l) => l.path === '/cat.jpg')).toHaveLength(1);
    });
  });

  it('a video takes several polls: pending, checked with the same token, published once', async () => {
    await withThreads({ polls: { VIDEO: 3 } }, async (sim, ctx, host) => {
      const account = await connect(sim, ctx);
      const url = host.put('clip.mp4', MP4(1), 'video/mp4');
      const token = pendingToken(await post(adapter, ctx, account, '<p>Watch</p>', { media: [videoAt(url)] }));
      expect(JSON.parse(token)).toMatchObject({ v: 1, type: 'VIDEO', text: 'Watch', container: expect.stringMatching(/^\d+$/) });
      expect(pendingToken(await check(adapter, ctx, account, token))).toBe(token);
      expect(pendingToken(await check(adapter, ctx, account, token))).toBe(token);
      const r = published(await check(adapter, ctx, account, token));
      const record = sim.posts.find((p) => p.id === r.id)!;
      expect(record).toMatchObject({ mediaType: 'VIDEO', text: 'Watch', media: [{ sha256: sha(MP4(1)) }] });
      expect(sim.containers.get(record.containerId)!.publishCalls).toBe(1);
      expect(calls(sim, 'POST', /threads_publish$/)).toHaveLength(1);
      // Checking the finished token again recognises the post instead of publishing it twice.
      expect(published(await check(adapter, ctx, account, token))).toEqual(r);
      expect(calls(sim, 'POST', /threads_publish$/)).toHaveLength(1);
      expect(sim.posts).toHaveLength(1);
    });
  });

  it('a video Threads fails to process fails the post with its error_message', async () => {
    await withThreads({ polls: { VIDEO: 1 } }, async (sim, ctx, host) => {
      const account = await connect(sim, ctx);
      sim.failNextMedia('INVALID_DURATION');
      const token = pendingToken(await post(adapter, ctx, account, '<p>Too long</p>', { media: [videoAt(host.put('long.mp4', MP4(2), 'video/mp4'))] }));
      const err = await platformFailure(check(adapter, ctx, account, token));
      expect({ kind: err.kind, message: err.message, code: err.details.platformCode }).toEqual({
        kind: 'rejected',
        message: 'Threads could not process the media: INVALID_DURATION (the duration is not accepted (at most 5 minutes))',
        code: 'INVALID_DURATION',
      });
      expect(calls(sim, 'POST', /threads_publish$/)).toHaveLength(0);
      // A video Threads cannot download fails the same way, with a hint about PUBLIC_URL.
      const missing = pendingToken(await post(adapter, ctx, account, '<p>Gone</p>', { media: [videoAt('https://media.example/missing.mp4')] }));
      const gone = await platformFailure(check(adapter, ctx, account, missing));
      expect(gone.message).toBe("Threads could not process the media: FAILED_DOWNLOADING_VIDEO (Threads could not download the video from this server's PUBLIC_URL)");
      expect(sim.posts).toHaveLength(0);
    });
  });

  it('a check that fails on the way is made again with the same token, never repeating a finished step', async () => {
    await withThreads({ polls: { VIDEO: 1 } }, async (sim, ctx, host) => {
      const account = await connect(sim, ctx);
      const token = pendingToken(await post(adapter, ctx, account, '<p>Flaky</p>', { media: [videoAt(host.put('f.mp4', MP4(3), 'video/mp4'))] }));
      sim.inject({ path: /^\/v1\.0\/\d+\?/, status: 500, body: { error: { message: 'An unknown error has occurred.', type: 'OAuthException', code: 1, is_transient: true } } });
      expect((await platformFailure(check(adapter, ctx, account, token))).kind).toBe('transient');
      // Threads fails the publish call itself (5xx): the answer is pending, and the status decides next time.
      sim.inject({ path: /threads_publish$/, status: 500, body: { error: { message: 'Service temporarily unavailable', type: 'OAuthException', code: 2, is_transient: true } } });
      expect(pendingToken(await check(adapter, ctx, account, token))).toBe(token);
      // "Media Not Found" right after FINISHED: Threads is not quite ready; pending again.
      sim.inject({ path: /threads_publish$/, status: 400, body: { error: { message: 'The requested resource does not exist', type: 'OAuthException', code: 24, error_subcode: 4279009 } } });
      expect(pendingToken(await check(adapter, ctx, account, token))).toBe(token);
      const r = published(await check(adapter, ctx, account, token));
      expect(sim.posts.map((p) => p.id)).toEqual([r.id]);
      // Every publish call but the last was answered by an injected failure before Threads acted on it.
      expect(sim.containers.get(sim.posts[0]!.containerId)!.publishCalls).toBe(1);
    });
  });

  it('a container an earlier call published (its answer lost) is recognised, not published again', async () => {
    await withThreads({ polls: { VIDEO: 0 } }, async (sim, ctx, host) => {
      const account = await connect(sim, ctx);
      // The same video post, published a minute before (inside the look-back margin): not it.
      const older = published(await post(adapter, ctx, account, '<p>Lost answer</p>', { media: [videoAt(host.put('o.mp4', MP4(40), 'video/mp4'))] }));
      sim.posts.find((p) => p.id === older.id)!.createdAt -= 60_000;
      // The video container is made; reading its status fails for a moment: the token keeps it.
      sim.inject({ path: /^\/v1\.0\/\d+\?/, status: 500, body: { error: { message: 'Service temporarily unavailable', code: 2, is_transient: true } } });
      const token = pendingToken(await post(adapter, ctx, account, '<p>Lost answer</p>', { media: [videoAt(host.put('l.mp4', MP4(4), 'video/mp4'))] }));
      const container = sim.containers.get((JSON.parse(token) as { container: string }).container)!;
      expect(container.mediaType).toBe('VIDEO');
      // Someone else's post with the same text, and our own older one, are not it.
      const earlier = published(await post(adapter, ctx, account, '<p>Lost answer</p>'));
      // The publish that got through, whose answer never came back.
      const direct = await fetch(`${sim.origin}/v1.0/me/threads_publish`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.credentials.accessToken as string}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: `creation_id=${container.id}`,
      });
      const { id } = (await direct.json()) as { id: string };
      const r = published(await check(adapter, ctx, account, token));
      expect(r.id).toBe(id);
      expect(r.id).not.toBe(earlier.id);
      expect(r.id).not.toBe(older.id);
      expect(r.url).toBe(sim.posts.find((p) => p.id === id)!.permalink);
      expect(container.publishCalls).toBe(1);
      expect(sim.posts.filter((p) => p.text === 'Lost answer')).toHaveLength(3);
    });
  });

  it('a carousel: items made and awaited, then the CAROUSEL container with the children in order', async () => {
    await withThreads({ polls: { VIDEO: 2 } }, async (sim, ctx, host) => {
      const account = await connect(sim, ctx);
      const media = [imageAt(host.put('a.png', PNG(1), 'image/png')), videoAt(host.put('b.mp4', MP4(5), 'video/mp4')), imageAt(host.put('c.jpg', JPEG(2), 'image/jpeg'), 'c', 'third')];
      const token = pendingToken(await post(adapter, ctx, account, '<p>Three things</p>', { media }));
      const t = JSON.parse(token) as { children: string[]; container?: string };
      expect(t.children).toHaveLength(3);
      expect(t.container).toBeUndefined();
      const items = calls(sim, 'POST', /^\/v1\.0\/\d+\/threads$/);
      expect(items.map((c) => c.body)).toEqual([
        { media_type: 'IMAGE', image_url: media[0]!.path, is_carousel_item: 'true' },
        { media_type: 'VIDEO', video_url: media[1]!.path, is_carousel_item: 'true' },
        { media_type: 'IMAGE', image_url: media[2]!.path, alt_text: 'third', is_carousel_item: 'true' },
      ]);
      expect(pendingToken(await check(adapter, ctx, account, token))).toBe(token);
      const r = published(await check(adapter, ctx, account, token));
      const carousel = calls(sim, 'POST', /^\/v1\.0\/\d+\/threads$/).filter((c) => (c.body as { media_type: string }).media_type === 'CAROUSEL');
      expect(carousel.map((c) => c.body)).toEqual([{ media_type: 'CAROUSEL', children: t.children.join(','), text: 'Three things' }]);
      const record = sim.posts.find((p) => p.id === r.id)!;
      expect(record.mediaType).toBe('CAROUSEL_ALBUM');
      expect(record.media.map((m) => m.sha256)).toEqual([sha(PNG(1)), sha(MP4(5)), sha(JPEG(2))]);
    });
  });

  it('a carousel container already made is kept in the token when the next read fails, never made twice', async () => {
    await withThreads({ polls: { VIDEO: 1 } }, async (sim, ctx, host) => {
      const account = await connect(sim, ctx);
      const media = [imageAt(host.put('k1.png', PNG(11), 'image/png')), videoAt(host.put('k2.mp4', MP4(11), 'video/mp4'))];
      const token = pendingToken(await post(adapter, ctx, account, '<p>Kept</p>', { media }));
      const children = (JSON.parse(token) as { children: string[] }).children;
      // The carousel container will be the simulator's next id; its first status read fails.
      const next = (BigInt(children.at(-1)!) + 1n).toString();
      sim.inject({ path: new RegExp(`^/v1\\.0/${next}\\?`), status: 500, body: { error: { message: 'An unknown error has occurred.', code: 1, is_transient: true } } });
      const kept = pendingToken(await check(adapter, ctx, account, token));
      expect(JSON.parse(kept)).toMatchObject({ children, container: next });
      const r = published(await check(adapter, ctx, account, kept));
      expect(sim.posts.find((p) => p.id === r.id)!.containerId).toBe(next);
      const carousels = calls(sim, 'POST', /^\/v1\.0\/\d+\/threads$/).filter((c) => (c.body as { media_type: string }).media_type === 'CAROUSEL');
      expect(carousels).toHaveLength(1);
    });
  });

  it('thread items reply to the item before, with their own media', async () => {
    await withThreads({}, async (sim, ctx, host) => {
      const account = await connect(sim, ctx);
      const first = published(await post(adapter, ctx, account, '<p>1/3</p>'));
      const second = published(await post(adapter, ctx, account, '<p>2/3</p>', { replyTo: { id: first.id, rootId: first.id }, media: [imageAt(host.put('r.png', PNG(7), 'image/png'))] }));
      const third = published(await post(adapter, ctx, account, '<p>3/3</p>', { replyTo: { id: second.id, rootId: first.id } }));
      expect(sim.lookup(second.id)).toEqual({ text: '2/3', replyTo: first.id, mediaSha256: [sha(PNG(7))] });
      expect(sim.lookup(third.id)?.replyTo).toBe(second.id);
      expect(sim.posts.find((p) => p.id === third.id)!.rootId).toBe(first.id);
      expect(calls(sim, 'POST', /^\/v1\.0\/\d+\/threads$/).at(-1)!.body).toEqual({ media_type: 'TEXT', text: '3/3', reply_to_id: second.id });
    });
  });

  it("Threads' own refusals: text and link limits, unfetchable pictures, the publishing quota", async () => {
    await withThreads({ publishQuota: 1 }, async (sim, ctx, host) => {
      const account = await connect(sim, ctx);
      const long = await platformFailure(post(adapter, ctx, account, `<p>${'a'.repeat(497)}👍</p>`));
      expect({ kind: long.kind, message: long.message }).toEqual({ kind: 'rejected', message: 'Text too long: The text of a post can be at most 500 characters.' });
      const links = await platformFailure(post(adapter, ctx, account, Array.from({ length: 6 }, (_, i) => `https://l${i}.example`).join(' ')));
      expect(links.message).toBe('Too many links: Posts can include at most 5 links.');
      const missing = await platformFailure(post(adapter, ctx, account, '<p>x</p>', { media: [imageAt('https://media.example/nothing.png')] }));
      expect({ kind: missing.kind, code: missing.details.platformCode }).toEqual({ kind: 'rejected', code: '100/2207052' });
      expect(missing.message).toContain("Threads downloads media from this server's PUBLIC_URL");
      const gif = await platformFailure(post(adapter, ctx, account, '<p>x</p>', { media: [imageAt(host.put('a.gif', Buffer.from('GIF89a....'), 'image/gif'))] }));
      expect(gif.message).toContain('not a JPEG or PNG picture');

      published(await post(adapter, ctx, account, '<p>the one post of the day</p>'));
      const quota = await platformFailure(post(adapter, ctx, account, '<p>one too many</p>'));
      expect({ kind: quota.kind, wait: quota.details.retryAfterSeconds }).toEqual({ kind: 'rate_limited', wait: PUBLISHING_LIMIT_WAIT_SECONDS });
      expect(sim.posts).toHaveLength(1);
    });
  });

  it('a container left past 24 hours has expired: the post fails, nothing is published', async () => {
    let offset = 0;
    const now = () => Date.now() + offset;
    await withThreads({ now, clock: { now }, polls: { VIDEO: 1 } }, async (sim, ctx, host) => {
      const account = await connect(sim, ctx);
      const token = pendingToken(await post(adapter, ctx, account, '<p>late</p>', { media: [videoAt(host.put('x.mp4', MP4(9), 'video/mp4'))] }));
      offset = 25 * 3600_000;
      const err = await platformFailure(check(adapter, ctx, account, token));
      expect({ kind: err.kind, code: err.details.platformCode }).toEqual({ kind: 'rejected', code: 'EXPIRED' });
      expect(sim.posts).toHaveLength(0);
    });
  });

  it('refuses a token made for another account', async () => {
    await withThreads({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const err = await platformFailure(check(adapter, ctx, account, JSON.stringify({ v: 1, user: '1', type: 'TEXT', text: 'x', container: '2', since: 0 })));
      expect(err.message).toBe('This Threads publish token belongs to another account');
      expect((await platformFailure(check(adapter, ctx, account, 'garbage'))).message).toBe('Unreadable Threads publish token');
    });
  });
});

describe('threads reading back', () => {
  async function seed(sim: ThreadsSimulator, ctx: TestCtx, account: ConnectedAccount) {
    const a = published(await post(adapter, ctx, account, '<p>first</p>'));
    const b = published(await post(adapter, ctx, account, '<p>reply</p>', { replyTo: { id: a.id, rootId: a.id } }));
    const c = published(await post(adapter, ctx, account, '<p>second</p>'));
    // Timestamps a second apart, oldest first.
    sim.posts.forEach((p, i) => (p.createdAt = Date.now() - (10 - i) * 1000));
    return { a, b, c };
  }

  it('findRecent lists posts and replies, newest first, with permalinks', async () => {
    await withThreads({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const { a, b, c } = await seed(sim, ctx, account);
      const recent = await adapter.findRecent!({ since: new Date(Date.now() - 60_000), limit: 10 }, { ...ctx, credentials: account.credentials });
      expect(recent.map((p) => [p.id, p.content])).toEqual([
        [c.id, 'second'],
        [b.id, 'reply'],
        [a.id, 'first'],
      ]);
      expect(recent[0]!.url).toBe(c.url);
      expect(recent[0]!.createdAt).toBe(new Date(Math.floor(sim.posts[2]!.createdAt / 1000) * 1000).toISOString());
      const two = await adapter.findRecent!({ since: new Date(Date.now() - 60_000), limit: 2 }, { ...ctx, credentials: account.credentials });
      expect(two.map((p) => p.id)).toEqual([c.id, b.id]);
      const later = await adapter.findRecent!({ since: new Date(sim.posts[2]!.createdAt), limit: 10 }, { ...ctx, credentials: account.credentials });
      expect(later.map((p) => p.id)).toEqual([c.id]);
      const listing = calls(sim, 'GET', /^\/v1\.0\/\d+\/threads\?/)[0]!;
      expect(new URL(listing.path, 'http://x').searchParams.get('fields')).toBe('id,media_type,text,timestamp,permalink,shortcode,username');
    });
  });

  it('pages through a long listing with the after cursor', async () => {
    await withThreads({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const model = published(await post(adapter, ctx, account, '<p>post 0</p>'));
      const first = sim.posts.find((p) => p.id === model.id)!;
      const base = Date.now() - 300_000;
      first.createdAt = base;
      for (let i = 1; i < 230; i++) sim.posts.push({ ...first, id: String(19_000_000_000_000_000n + BigInt(i)), text: `post ${i}`, createdAt: base + i * 1000 });
      const recent = await adapter.findRecent!({ since: new Date(base - 1000), limit: 230 }, { ...ctx, credentials: account.credentials });
      expect(recent.map((p) => p.content)).toEqual(Array.from({ length: 230 }, (_, i) => `post ${229 - i}`));
      const pages = calls(sim, 'GET', /^\/v1\.0\/\d+\/threads\?/).map((r) => new URL(r.path, 'http://x').searchParams);
      expect(pages.map((q) => [q.get('limit'), q.get('after') !== null])).toEqual([
        ['100', false],
        ['100', true],
        ['100', true],
      ]);
      const three = await adapter.findRecent!({ since: new Date(base - 1000), limit: 3 }, { ...ctx, credentials: account.credentials });
      expect(three.map((p) => p.content)).toEqual(['post 229', 'post 228', 'post 227']);
    });
  });

  it('channel insights: profile views per day, totals for the period, followers', async () => {
    await withThreads({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const day = (n: number) => new Date(Date.now() - n * DAY).toISOString().slice(0, 10);
      sim.setUserInsights(ADA.id, { views: { [day(3)]: 10, [day(2)]: 20, [day(1)]: 30, [day(0)]: 40 }, likes: 12, replies: 3, reposts: 2, quotes: 1 });
      const series = await adapter.analytics!(4, { ...ctx, credentials: account.credentials });
      const views = series.find((s) => s.label === 'Profile views')!;
      expect(views.data.map((d) => d.total)).toEqual([10, 20, 30, 40]);
      expect(views.data.map((d) => d.date)).toEqual([day(3), day(2), day(1), day(0)]);
      expect(views.percentageChange).toBe(133.33);
      expect(Object.fromEntries(series.map((s) => [s.label, s.data.at(-1)!.total]))).toEqual({ 'Profile views': 40, Likes: 12, Replies: 3, Reposts: 2, Quotes: 1, Followers: ADA.followers });
      const q = new URL(calls(sim, 'GET', /threads_insights/)[0]!.path, 'http://x').searchParams;
      expect(q.get('metric')).toBe('views,likes,replies,reposts,quotes,followers_count');
      // From the start of the first of the four days (UTC) until now.
      expect(Number(q.get('since')) % 86_400).toBe(0);
      expect(Number(q.get('until')) - Number(q.get('since'))).toBeLessThan(4 * 86_400);
      expect(Number(q.get('until')) - Number(q.get('since'))).toBeGreaterThan(3 * 86_400);
    });
  });

  it('post insights: lifetime figures of one post', async () => {
    await withThreads({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await post(adapter, ctx, account, '<p>measured</p>'));
      sim.setPostInsights(r.id, { views: 500, likes: 40, replies: 5, reposts: 4, quotes: 2, shares: 7 });
      const series = await adapter.postAnalytics!(r.id, 7, { ...ctx, credentials: account.credentials });
      expect(Object.fromEntries(series.map((s) => [s.label, s.data[0]!.total]))).toEqual({ Views: 500, Likes: 40, Replies: 5, Reposts: 4, Quotes: 2, Shares: 7 });
    });
  });
});

describe('threads errors', () => {
  it('maps Threads’ answers to one kind each, keeping its words', () => {
    const kind = (r: PlatformResponse) => threadsError(r)?.kind;
    expect(kind(answer(400, { code: 190, error_subcode: 463 }))).toBe('auth_expired');
    expect(kind(answer(400, { code: 190, error_subcode: 460 }))).toBe('reconnect_required');
    expect(kind(answer(400, { code: 190 }))).toBe('reconnect_required');
    expect(kind(answer(500, { code: 2, is_transient: true }))).toBe('transient');
    expect(kind(answer(400, { code: 24, error_subcode: 4279009 }))).toBe('transient');
    const limited = threadsError(answer(400, { code: 4 }))!;
    expect({ kind: limited.kind, wait: limited.details.retryAfterSeconds }).toEqual({ kind: 'rate_limited', wait: DEFAULT_RATE_LIMIT_WAIT_SECONDS });
    const buc = JSON.stringify({ [ADA.id]: [{ type: 'threads', call_count: 100, total_cputime: 10, total_time: 10, estimated_time_to_regain_access: 12 }] });
    expect(threadsError(answer(400, { code: 80002 }, { 'x-business-use-case-usage': buc }))!.details.retryAfterSeconds).toBe(720);
    expect(threadsError(answer(400, { code: 9 }))!.details.retryAfterSeconds).toBe(PUBLISHING_LIMIT_WAIT_SECONDS);
    const perm = threadsError(answer(403, { code: 10, message: '(#10) Application does not have permission for this action' }))!;
    expect({ kind: perm.kind, message: perm.message }).toEqual({ kind: 'rejected', message: '(#10) Application does not have permission for this action (the channel lacks a Threads permission: reconnect it to grant it)' });
    const policy = threadsError(answer(400, { code: 368, error_user_title: 'Action blocked', error_user_msg: 'Against the guidelines.' }))!;
    expect({ kind: policy.kind, message: policy.message }).toEqual({ kind: 'rejected', message: 'Action blocked: Against the guidelines.' });
    // an error inside an HTTP 200 answer
    expect(kind(answer(200, { code: 100, message: 'Invalid parameter' }))).toBe('rejected');
    expect(kind({ status: 502, headers: {}, body: '<html>Bad Gateway</html>' })).toBe('transient');
  });

  it("explains a failed container's error_message", () => {
    expect(containerError('ERROR', 'FAILED_PROCESSING_VIDEO').message).toBe('Threads could not process the media: FAILED_PROCESSING_VIDEO (Threads could not process the video)');
    expect(containerError('ERROR', undefined).message).toBe('Threads could not process the media: UNKNOWN');
    expect(containerError('ERROR', 'SOMETHING_NEW').message).toBe('Threads could not process the media: SOMETHING_NEW');
    expect(containerError('EXPIRED', undefined).details.platformCode).toBe('EXPIRED');
  });
});
