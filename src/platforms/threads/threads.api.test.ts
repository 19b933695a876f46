import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.js';
import type { ManualClock } from '../../lib/clock.js';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';
import { listen } from '../../../test/wire.js';
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

const PUBLIC_URL = 'https://tidings.example';
const CALLBACK = `${PUBLIC_URL}/integrations/social/threads/callback`;
const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/media');
const VIDEO_POLLS = 3;

interface ItemView {
  id: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
}
interface PostView extends ItemView {
  nextAttemptAt: string | null;
  thread: ItemView[];
}
interface Uploaded {
  id: string;
  path: string;
  sha256: string;
}

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: ThreadsSimulator;
let dataDir: string;
let channel: string;
const mediaOrigins: Record<string, string> = {};

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-threads-api-'));
  // The media origin is filled in once the app listens (the simulator reads it at each fetch).
  sim = await startThreadsSimulator({ mediaOrigins, polls: { VIDEO: VIDEO_POLLS } });
  sim.addApp({ ...THREADS_APP, redirectUris: [CALLBACK] });
  sim.addUser(ADA);
  clock = realtimeManualClock();
  t = await buildTestApp({
    clock,
    startWorker: true,
    env: {
      DATA_DIR: dataDir,
      PUBLIC_URL,
      PLATFORM_ORIGINS: `${THREADS_WWW_ORIGIN}=${sim.origin},${THREADS_GRAPH_ORIGIN}=${sim.origin}`,
      THREADS_CLIENT_ID: THREADS_APP.clientId,
      THREADS_CLIENT_SECRET: THREADS_APP.clientSecret,
    },
  });
  mediaOrigins[PUBLIC_URL] = (await listen(t.app)).origin;
  org = await t.createOrg('Acme');
});

afterAll(async () => {
  await t?.close();
  await sim?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function rowOf(id: string) {
  const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.id, id));
  return row!;
}

async function upload(file: string): Promise<Uploaded> {
  const data = await readFile(join(FIXTURES, file));
  const item = await uploadMedia(t, org, data, file);
  expect(item.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
  return { id: item.id, path: item.path, sha256: sha(data) };
}

async function getPost(id: string): Promise<PostView> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PostView>();
}

const done = (i: ItemView) => i.state === 'PUBLISHED' || i.state === 'ERROR';

/** Until the post and its thread items are PUBLISHED or ERROR, bringing each next attempt (a pending check) forward. */
async function settle(id: string): Promise<PostView> {
  let last: PostView | undefined;
  try {
    return await waitFor(
      async () => {
        last = await getPost(id);
        if (done(last) && last.thread.every(done)) return last;
        const next = last.nextAttemptAt ? Date.parse(last.nextAttemptAt) : Number.NaN;
        if (next > clock.now()) clock.advance(next - clock.now());
        await releaseDueJobs(t, clock);
        await sleep(50);
        return undefined;
      },
      45_000,
      `post ${id} to settle`,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last seen: ${JSON.stringify(last)}`, { cause: e });
  }
}

function createPost(items: { content: string; media?: Uploaded[] }[]) {
  return call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: {
      type: 'now',
      shortLink: false,
      tags: [],
      posts: [{ integration: { id: channel }, settings: { __type: 'threads' }, value: items.map((i) => ({ content: i.content, image: (i.media ?? []).map((m) => ({ id: m.id, path: m.path })) })) }],
    },
  });
}

async function publish(items: { content: string; media?: Uploaded[] }[]): Promise<PostView> {
  const res = await createPost(items);
  expect(res.statusCode, res.body).toBe(201);
  return settle(res.json<{ postId: string }[]>()[0]!.postId);
}

const record = (releaseId: string | null) => sim.posts.find((p) => p.id === releaseId)!;
const expectPublished = (item: ItemView) => {
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
    const begun = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/threads' });
    expect(begun.statusCode, begun.body).toBe(200);
    const { url } = begun.json<{ url: string }>();
    expect(url.startsWith(`${sim.origin}/oauth/authorize?`)).toBe(true);
    const approved = await fetch(url, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
    const page = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(page.statusCode, page.body).toBe(200);

    const [row] = await t.deps.database.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.organizationId, org.id), eq(integrations.identifier, 'threads')));
    expect(row).toMatchObject({ internalId: ADA.id, name: ADA.name, profile: ADA.username, picture: ADA.picture, refreshNeeded: false });
    const creds = JSON.parse(t.deps.secretBox.open(row!.credentials!)) as Record<string, string>;
    expect(sim.tokens.get(creds.accessToken!)).toMatchObject({ kind: 'long', userId: ADA.id });
    expect(Date.parse(creds.expiresAt!) - row!.tokenExpiresAt!.getTime()).toBe(RENEW_BEFORE_MS);
    channel = row!.id;
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
    const res = await createPost([{ content: '<p>Jittery</p>', media: [await upload('h264-aac-faststart.mp4')] }]);
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect(post.state).toBe('ERROR');
    expect(post.error).toContain('Threads could not process the media: INVALID_FRAME_RATE');
    expect(sim.posts).toHaveLength(before);
  });

  it('refuses what Threads would: its own count past 500, more than five links, a WebP it would fetch as stored', async () => {
    const webp = await upload('photo-80x60.webp');
    const res = await call(t.app, org.apiKey, {
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
    const before = JSON.parse(t.deps.secretBox.open((await rowOf(channel)).credentials!)) as Record<string, string>;
    // The channel is due for renewal (its recorded expiry is ten days before the token's).
    await t.deps.database.db
      .update(integrations)
      .set({ tokenExpiresAt: new Date(clock.now() + 60_000) })
      .where(eq(integrations.id, channel));
    const post = await publish([{ content: '<p>After renewal</p>' }]);
    expectPublished(post);
    expect(sim.log.filter((l) => l.path.startsWith('/refresh_access_token'))).toHaveLength(1);
    const row = await rowOf(channel);
    const after = JSON.parse(t.deps.secretBox.open(row.credentials!)) as Record<string, string>;
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(sim.tokens.get(after.accessToken!)!.kind).toBe('long');
    expect(row.tokenExpiresAt!.getTime()).toBe(Date.parse(after.expiresAt!) - RENEW_BEFORE_MS);
    const publishCall = sim.log.filter((l) => l.method === 'POST' && l.path.endsWith('/threads_publish')).at(-1)!;
    expect(publishCall.headers.authorization).toBe(`Bearer ${after.accessToken}`);
  });

  it('channel and post analytics from Threads insights', async () => {
    sim.setUserInsights(ADA.id, { views: { [new Date(clock.now()).toISOString().slice(0, 10)]: 77 }, likes: 5, replies: 2, reposts: 1, quotes: 0 });
    const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/analytics/${channel}?date=7` });
    expect(res.statusCode, res.body).toBe(200);
    const series = res.json<{ label: string; data: { total: number }[] }[]>();
    expect(series.map((s) => s.label)).toEqual(['Profile views', 'Likes', 'Replies', 'Reposts', 'Quotes', 'Followers']);
    expect(series[0]!.data).toHaveLength(7);
    expect(series[0]!.data.at(-1)!.total).toBe(77);
    expect(series.find((s) => s.label === 'Followers')!.data[0]!.total).toBe(ADA.followers);

    const post = await publish([{ content: '<p>Counted</p>' }]);
    sim.setPostInsights(post.releaseId!, { views: 321, likes: 9 });
    const stats = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/analytics/post/${post.id}?date=7` });
    expect(stats.statusCode, stats.body).toBe(200);
    const figures = Object.fromEntries(stats.json<{ label: string; data: { total: number }[] }[]>().map((s) => [s.label, s.data[0]!.total]));
    expect(figures).toMatchObject({ Views: 321, Likes: 9, Shares: 0 });
  });

  it('an idle channel is renewed by the token keeper when its renewal comes due; a revoked one is marked refreshNeeded with a notification', async () => {
    const before = JSON.parse(t.deps.secretBox.open((await rowOf(channel)).credentials!)) as Record<string, string>;
    const refreshes = () => sim.log.filter((l) => l.path.startsWith('/refresh_access_token')).length;
    const counted = refreshes();
    // Not due yet: nothing happens.
    expect(await t.deps.tokenKeeper.sweep(new Date(clock.now()))).toEqual({ renewed: 0, failed: 0 });
    expect(refreshes()).toBe(counted);
    // Due within the sweep's horizon (the keeper runs every 30 minutes): renewed without any post.
    await t.deps.database.db.update(integrations).set({ tokenExpiresAt: new Date(clock.now() + 10 * 60_000) }).where(eq(integrations.id, channel));
    expect(await t.deps.tokenKeeper.sweep(new Date(clock.now()))).toEqual({ renewed: 1, failed: 0 });
    expect(refreshes()).toBe(counted + 1);
    const row = await rowOf(channel);
    const after = JSON.parse(t.deps.secretBox.open(row.credentials!)) as Record<string, string>;
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(row.tokenExpiresAt!.getTime()).toBe(Date.parse(after.expiresAt!) - RENEW_BEFORE_MS);

    // A grant revoked at Threads: the channel needs reconnecting, and the organisation is told.
    sim.revokeAccessTokens();
    await t.deps.database.db.update(integrations).set({ tokenExpiresAt: new Date(clock.now() + 10 * 60_000) }).where(eq(integrations.id, channel));
    expect(await t.deps.tokenKeeper.sweep(new Date(clock.now()))).toEqual({ renewed: 0, failed: 1 });
    expect((await rowOf(channel)).refreshNeeded).toBe(true);
    const notes = (await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/notifications' })).json<{ notifications: { content: string }[] }>();
    expect(notes.notifications.map((n) => n.content)).toContainEqual(expect.stringMatching(/^Channel .* \(threads\) must be reconnected/));
    // Channels waiting for a reconnect are left alone.
    expect(await t.deps.tokenKeeper.sweep(new Date(clock.now()))).toEqual({ renewed: 0, failed: 0 });
  });
});
