import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.js';
import { expectError } from '../../../test/helpers.js';
import { callbackUrl, platformApi, PUBLIC_URL, sha, type PostItemView, type Uploaded } from '../../../test/platform-api-kit.js';
import { RENEW_BEFORE_MS } from './index.js';
import { startThreadsSimulator, THREADS_GRAPH_ORIGIN, THREADS_WWW_ORIGIN, type ThreadsSimulator } from './threads.simulator.js';
import { ADA, THREADS_APP } from './threads.testkit.js';

/**
 * Threads end to end through the HTTP API of a real app with its worker: connecting through
 * `GET /social/threads`, the simulator's authorisation page and the callback; media uploaded with
 * `POST /upload` and fetched by the simulator from the app's own `PUBLIC_URL/media/…` (the
 * public origin mapped to where the app listens); posts published by the worker, videos polled
 * over several checks; the results read back with `GET /posts/{id}` and checked against what the
 * simulator recorded (bytes by sha256, replies, one publish per container).
 */

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/media');
const VIDEO_POLLS = 3;

const api = platformApi('threads');
let sim: ThreadsSimulator;
let channel: string;
const mediaOrigins: Record<string, string> = {};

beforeAll(async () => {
  // The media origin is filled in once the app listens (the simulator reads it at each fetch).
  sim = await startThreadsSimulator({ mediaOrigins, polls: { VIDEO: VIDEO_POLLS } });
  sim.addApp({ ...THREADS_APP, redirectUris: [callbackUrl('threads')] });
  sim.addUser(ADA);
  await api.start({
    env: {
      PUBLIC_URL,
      PLATFORM_ORIGINS: `${THREADS_WWW_ORIGIN}=${sim.origin},${THREADS_GRAPH_ORIGIN}=${sim.origin}`,
      THREADS_CLIENT_ID: THREADS_APP.clientId,
      THREADS_CLIENT_SECRET: THREADS_APP.clientSecret,
    },
  });
  mediaOrigins[PUBLIC_URL] = await api.listen();
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

const rowOf = (id: string) => api.channelRow(id);

async function upload(file: string): Promise<Uploaded> {
  const item = await api.upload(await readFile(join(FIXTURES, file)), file);
  expect(item.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
  return item;
}

type Item = { content: string; media?: Uploaded[] };
const value = (items: Item[]) => items.map((i) => ({ content: i.content, image: (i.media ?? []).map((m) => ({ id: m.id, path: m.path })) }));
const createPost = (items: Item[]) => api.createPost(channel, {}, value(items));
/** Until the post and its thread items are PUBLISHED or ERROR (the post itself PUBLISHED). */
const publish = (items: Item[]) => api.publish(channel, {}, value(items), { thread: true });

const record = (releaseId: string | null) => sim.posts.find((p) => p.id === releaseId)!;
const expectPublished = (item: PostItemView) => {
  expect({ state: item.state, error: item.error }).toEqual({ state: 'PUBLISHED', error: null });
  const r = record(item.releaseId);
  expect(r).toBeDefined();
  expect(item.releaseURL).toBe(r.permalink);
  expect(item.releaseURL).toMatch(/^https:\/\/www\.threads\.net\/@ada\.codes\/post\/[\w-]{11}$/);
  expect(sim.containers.get(r.containerId)!.publishCalls).toBe(1);
  return r;
};

describe('Threads through the API', () => {
  it('connects: GET /social/threads → the authorisation page → the callback stores the 60-day token', async () => {
    const { url, channel: listed } = await api.connectThroughOAuth();
    expect(url.href.startsWith(`${sim.origin}/oauth/authorize?`)).toBe(true);

    const row = await rowOf(listed.id);
    expect(row).toMatchObject({ internalId: ADA.id, name: ADA.name, profile: ADA.username, picture: ADA.picture, refreshNeeded: false });
    const creds = await api.openCredentials<Record<string, string>>(listed.id);
    expect(sim.tokens.get(creds.accessToken!)).toMatchObject({ kind: 'long', userId: ADA.id });
    expect(Date.parse(creds.expiresAt!) - row.tokenExpiresAt!.getTime()).toBe(RENEW_BEFORE_MS);
    channel = row.id;
  });

  it('a thread of three texts: the post, then each item replying to the one before', async () => {
    const post = await publish([{ content: '<p>A thread 1/3</p>' }, { content: '<p>2/3</p>' }, { content: '<p>3/3 🧵</p>' }]);
    const root = expectPublished(post);
    expect(root).toMatchObject({ text: 'A thread 1/3', mediaType: 'TEXT_POST' });
    const [second, third] = post.thread.map(expectPublished);
    expect(second).toMatchObject({ text: '2/3', replyTo: root.id, rootId: root.id });
    expect(third).toMatchObject({ text: '3/3 🧵', replyTo: second!.id, rootId: root.id });
  });

  it('a picture, fetched by Threads from PUBLIC_URL/media with the exact bytes, and a reply with its own picture', async () => {
    const [jpeg, png] = [await upload('photo-64x48.jpg'), await upload('photo-48x64.png')];
    const post = await publish([{ content: '<p>Photo</p>', media: [jpeg] }, { content: '<p>And another</p>', media: [png] }]);
    const root = expectPublished(post);
    expect(root.media).toEqual([{ sha256: jpeg.sha256, size: expect.any(Number), mimeType: 'image/jpeg' }]);
    const reply = expectPublished(post.thread[0]!);
    expect(reply).toMatchObject({ mediaType: 'IMAGE', replyTo: root.id });
    expect(reply.media.map((m) => m.sha256)).toEqual([png.sha256]);
    const container = sim.containers.get(root.containerId)!;
    expect(container.imageUrl).toBe(jpeg.path);
  });

  it('a carousel with a video: pending while Threads processes it over several polls, then published once, in order', async () => {
    const media = [await upload('photo-48x64.png'), await upload('h264-aac-faststart.mp4'), await upload('photo-64x48.jpg')];
    const statusReadsBefore = sim.log.filter((r) => r.method === 'GET' && /^\/v1\.0\/\d+\?.*status/.test(r.path)).length;
    const post = await publish([{ content: '<p>Carousel</p>', media }]);
    const r = expectPublished(post);
    expect(r.mediaType).toBe('CAROUSEL_ALBUM');
    expect(r.media.map((m) => m.sha256)).toEqual(media.map((m) => m.sha256));
    const carousel = sim.containers.get(r.containerId)!;
    expect(carousel.children).toHaveLength(3);
    const video = sim.containers.get(carousel.children[1]!)!;
    expect({ type: video.mediaType, status: video.status, url: video.videoUrl }).toEqual({ type: 'VIDEO', status: 'PUBLISHED', url: media[1]!.path });
    // The video was read IN_PROGRESS several times before FINISHED: the worker polled the token.
    const reads = sim.log.filter((l) => l.method === 'GET' && /^\/v1\.0\/\d+\?.*status/.test(l.path)).length - statusReadsBefore;
    expect(reads).toBeGreaterThanOrEqual(VIDEO_POLLS + 1);
    // One carousel container, made once its items were ready.
    expect(sim.log.filter((l) => l.method === 'POST' && (l.body as { media_type?: string } | null)?.media_type === 'CAROUSEL')).toHaveLength(1);
  });

  it('a video Threads cannot process ends ERROR with its reason, and nothing is published', async () => {
    const before = sim.posts.length;
    sim.failNextMedia('INVALID_FRAME_RATE');
    const post = await api.settle(api.postIdOf(await createPost([{ content: '<p>Jittery</p>', media: [await upload('h264-aac-faststart.mp4')] }])), { thread: true });
    expect(post.state).toBe('ERROR');
    expect(post.error).toContain('Threads could not process the media: INVALID_FRAME_RATE');
    expect(sim.posts).toHaveLength(before);
  });

  it('a WebP (Threads takes JPEG and PNG) is pulled as its JPEG rendition: the same picture, the same size', async () => {
    const webp = await upload('photo-80x60.webp');
    const post = await publish([{ content: '<p>WebP</p>', media: [webp] }]);
    const root = expectPublished(post);
    const container = sim.containers.get(root.containerId)!;
    expect(container.imageUrl).toBe(`${webp.path}.jpg`);
    const served = await api.t.app.inject({ method: 'GET', url: new URL(container.imageUrl!).pathname });
    expect([served.statusCode, served.headers['content-type']]).toEqual([200, 'image/jpeg']);
    const jpeg = served.rawPayload;
    expect(root.media).toEqual([{ sha256: sha(jpeg), size: jpeg.length, mimeType: 'image/jpeg' }]);
    const meta = await sharp(jpeg).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 80, 60]);
  });

  it('refuses what Threads would: its own count past 500, more than five links, a GIF it would fetch as stored', async () => {
    const webp = await upload('still-32x24.gif');
    const res = await api.call({
      method: 'POST',
      url: '/public/v1/posts',
      payload: {
        type: 'now',
        shortLink: false,
        tags: [],
        posts: [
          {
            integration: { id: channel },
            settings: {},
            value: [
              { content: `${'a'.repeat(490)}👍👍👍`, image: [] },
              { content: Array.from({ length: 6 }, (_, i) => `https://l${i}.example`).join(' '), image: [{ id: webp.id, path: webp.path }] },
            ],
          },
        ],
      },
    });
    const body = expectError(res, 400, 'VALIDATION_FAILED');
    expect(body.fields!.map((f) => f.path).sort()).toEqual(['posts.0.value.0.content', 'posts.0.value.1.content', 'posts.0.value.1.image.0']);
  });

  it('renews the token before it expires, then publishes with the new one', async () => {
    const before = await api.openCredentials<Record<string, string>>(channel);
    // The channel is due for renewal (its recorded expiry is ten days before the token's).
    await api.t.deps.database.db
      .update(integrations)
      .set({ tokenExpiresAt: new Date(api.clock.now() + 60_000) })
      .where(eq(integrations.id, channel));
    const post = await publish([{ content: '<p>After renewal</p>' }]);
    expectPublished(post);
    expect(sim.log.filter((l) => l.path.startsWith('/refresh_access_token'))).toHaveLength(1);
    const row = await rowOf(channel);
    const after = await api.openCredentials<Record<string, string>>(channel);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(sim.tokens.get(after.accessToken!)!.kind).toBe('long');
    expect(row.tokenExpiresAt!.getTime()).toBe(Date.parse(after.expiresAt!) - RENEW_BEFORE_MS);
    const publishCall = sim.log.filter((l) => l.method === 'POST' && l.path.endsWith('/threads_publish')).at(-1)!;
    expect(publishCall.headers.authorization).toBe(`Bearer ${after.accessToken}`);
  });

  it('channel and post analytics from Threads insights', async () => {
    sim.setUserInsights(ADA.id, { views: { [new Date(api.clock.now()).toISOString().slice(0, 10)]: 77 }, likes: 5, replies: 2, reposts: 1, quotes: 0 });
    const series = await api.figures(channel);
    expect(series.map((s) => s.label)).toEqual(['Profile views', 'Likes', 'Replies', 'Reposts', 'Quotes', 'Followers']);
    expect(series[0]!.data).toHaveLength(7);
    expect(series[0]!.data.at(-1)!.total).toBe(77);
    expect(series.find((s) => s.label === 'Followers')!.data[0]!.total).toBe(ADA.followers);

    const post = await publish([{ content: '<p>Counted</p>' }]);
    sim.setPostInsights(post.releaseId!, { views: 321, likes: 9 });
    const figures = Object.fromEntries((await api.figures(`post/${post.id}`)).map((s) => [s.label, s.data[0]!.total]));
    expect(figures).toMatchObject({ Views: 321, Likes: 9, Shares: 0 });
  });

  it('an idle channel is renewed by the token keeper when its renewal comes due; a revoked one is marked refreshNeeded with a notification', async () => {
    const before = await api.openCredentials<Record<string, string>>(channel);
    const refreshes = () => sim.log.filter((l) => l.path.startsWith('/refresh_access_token')).length;
    const counted = refreshes();
    // Not due yet: nothing happens.
    expect(await api.t.deps.tokenKeeper.sweep(new Date(api.clock.now()))).toEqual({ renewed: 0, failed: 0 });
    expect(refreshes()).toBe(counted);
    // Due within the sweep's horizon (the keeper runs every 30 minutes): renewed without any post.
    await api.t.deps.database.db.update(integrations).set({ tokenExpiresAt: new Date(api.clock.now() + 10 * 60_000) }).where(eq(integrations.id, channel));
    expect(await api.t.deps.tokenKeeper.sweep(new Date(api.clock.now()))).toEqual({ renewed: 1, failed: 0 });
    expect(refreshes()).toBe(counted + 1);
    const row = await rowOf(channel);
    const after = await api.openCredentials<Record<string, string>>(channel);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(row.tokenExpiresAt!.getTime()).toBe(Date.parse(after.expiresAt!) - RENEW_BEFORE_MS);

    // A grant revoked at Threads: the channel needs reconnecting, and the organisation is told.
    sim.revokeAccessTokens();
    await api.t.deps.database.db.update(integrations).set({ tokenExpiresAt: new Date(api.clock.now() + 10 * 60_000) }).where(eq(integrations.id, channel));
    expect(await api.t.deps.tokenKeeper.sweep(new Date(api.clock.now()))).toEqual({ renewed: 0, failed: 1 });
    expect((await rowOf(channel)).refreshNeeded).toBe(true);
    const notes = (await api.call({ method: 'GET', url: '/public/v1/notifications' })).json<{ notifications: { content: string }[] }>();
    expect(notes.notifications.map((n) => n.content)).toContainEqual(expect.stringMatching(/^Channel .* \(threads\) must be reconnected/));
    // Channels waiting for a reconnect are left alone.
    expect(await api.t.deps.tokenKeeper.sweep(new Date(api.clock.now()))).toEqual({ renewed: 0, failed: 0 });
  });
});
