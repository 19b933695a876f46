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
import type { VkSimulator } from './vk.simulator.js';
import { BAKERY, NEWS, platformOriginsFor, VK_APP, VK_USER, vkSimulator } from './vk.testkit.js';

/**
 * VK end to end through the HTTP API of a real app with its worker: connecting through
 * `GET /social/vk` → the simulator's VK ID page → the callback, the communities tool, a post with
 * pictures and a video published by the worker through VK's upload servers, a community post with
 * its thread items as comments, post analytics, and a transparent refresh of the 1-hour token.
 * The simulator's records are the verdict: posts and comments with the uploaded bytes (sha256).
 */

const PUBLIC_URL = 'https://tidings.example';
const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/media');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: VkSimulator;
let dataDir: string;
let channelId: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-vk-'));
  // VK ID refuses a token exchange without the device_id it put on the callback.
  sim = await vkSimulator({ requireDeviceId: true });
  sim.apps.get(VK_APP.clientId)!.redirectUris = [`${PUBLIC_URL}/integrations/social/vk/callback`];
  clock = realtimeManualClock();
  t = await buildTestApp({
    clock,
    startWorker: true,
    env: { DATA_DIR: dataDir, PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), VK_CLIENT_ID: VK_APP.clientId, VK_CLIENT_SECRET: VK_APP.clientSecret },
  });
  org = await t.createOrg('Bakery');
});

afterAll(async () => {
  await t?.close();
  await sim?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface PostView {
  id: string;
  group: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
  nextAttemptAt: string | null;
}

async function upload(file: string, name = file) {
  const data = await readFile(join(FIXTURES, file));
  const item = await uploadMedia(t, org, data, name);
  return { id: item.id, path: item.path, sha256: sha(data) };
}

type Item = { content: string; image: { id: string; path: string }[] };
const createPost = (settings: Record<string, unknown>, value: Item[]) =>
  call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'vk', ...settings }, value }] },
  });

async function getPost(id: string): Promise<PostView> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PostView>();
}

async function settle(id: string): Promise<PostView> {
  let last: PostView | undefined;
  return waitFor(
    async () => {
      last = await getPost(id);
      if (last.state === 'PUBLISHED' || last.state === 'ERROR') return last;
      const next = last.nextAttemptAt ? Date.parse(last.nextAttemptAt) : Number.NaN;
      if (next > clock.now()) clock.advance(next - clock.now());
      await releaseDueJobs(t, clock);
      await sleep(50);
      return undefined;
    },
    45_000,
    `post ${id} to be published (last seen ${JSON.stringify(last)})`,
  );
}

/** Publishes and waits for the first item to be published. */
async function publish(settings: Record<string, unknown>, value: Item[]): Promise<PostView> {
  const res = await createPost(settings, value);
  expect(res.statusCode, res.body).toBe(201);
  const first = await settle(res.json<{ postId: string }[]>()[0]!.postId);
  expect({ state: first.state, error: first.error }).toEqual({ state: 'PUBLISHED', error: null });
  return first;
}

describe('vk through the API', () => {
  it('connects through the VK ID page and the callback', async () => {
    const begun = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/vk' });
    expect(begun.statusCode, begun.body).toBe(200);
    const url = new URL(begun.json<{ url: string }>().url);
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/authorize');
    expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/integrations/social/vk/callback`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const approved = await fetch(url, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    expect(back.searchParams.get('device_id')).toBe(sim.deviceIds.at(-1));
    const page = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('VK connected');

    const listed = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
    const channel = listed.json<{ id: string; identifier: string; name: string; profile: string; picture: string }[]>().find((i) => i.identifier === 'vk')!;
    expect(channel).toMatchObject({ name: 'Pavel Sokolov', profile: `id${VK_USER.id}` });
    channelId = channel.id;
    const [row] = await t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, org.id)));
    expect(row!.internalId).toBe(VK_USER.id);
    // The callback's device_id reaches the adapter and is kept for the refresh calls.
    expect((JSON.parse(t.deps.secretBox.open(row!.credentials!)) as { deviceId: unknown }).deviceId).toBe(sim.deviceIds.at(-1));
  });

  it('the communities tool lists the communities the user can post to', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'communities', data: {} } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ output: { id: string; name: string }[] }>().output.map((g) => [g.id, g.name])).toEqual([
      [BAKERY.id, BAKERY.name],
      [NEWS.id, NEWS.name],
    ]);
  });

  it('refuses bad settings and an empty item, naming the field', async () => {
    const paths = (res: Awaited<ReturnType<typeof createPost>>) => [...new Set(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))];
    expect(paths(await createPost({ community: 'club1' }, [{ content: 'x', image: [] }]))).toEqual(['posts.0.settings.community']);
    expect(paths(await createPost({ from_group: true }, [{ content: 'x', image: [] }]))).toEqual(['posts.0.settings.from_group']);
    expect(paths(await createPost({}, [{ content: '<p></p>', image: [] }]))).toEqual(['posts.0.value.0.content']);
    expect(sim.posts).toHaveLength(0);
  });

  it('a post with two pictures and a video on the user’s wall, byte for byte', async () => {
    const png = await upload('photo-48x64.png');
    const jpg = await upload('photo-64x48.jpg');
    const clip = await upload('h264-aac-faststart.mp4', 'clip.mp4');
    const post = await publish({}, [{ content: '<p>Morning <strong>bake</strong></p>', image: [png, jpg, clip] }]);
    const record = sim.posts.find((p) => `${p.ownerId}_${p.id}` === post.releaseId)!;
    expect(record).toMatchObject({ ownerId: VK_USER.id, fromId: VK_USER.id, text: 'Morning bake' });
    expect(post.releaseURL).toBe(`https://vk.com/wall${post.releaseId}`);
    expect(sim.lookup(post.releaseId!)!.mediaSha256).toEqual([png.sha256, jpg.sha256, clip.sha256]);
  });

  it('a community post with thread items: published as the community, the items as comments on it', async () => {
    const png = await upload('photo-48x64.png', 'menu.png');
    const res = await createPost({ community: BAKERY.id }, [
      { content: '<p>Today’s menu</p>', image: [] },
      { content: '<p>Soups</p>', image: [png] },
      { content: '<p>Borscht</p>', image: [] },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const first = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect(first).toMatchObject({ state: 'PUBLISHED', error: null });
    const post = sim.posts.find((p) => `${p.ownerId}_${p.id}` === first.releaseId)!;
    expect(post).toMatchObject({ ownerId: `-${BAKERY.id}`, fromId: `-${BAKERY.id}`, text: 'Today’s menu' });
    const comments = await waitFor(
      () => {
        const list = sim.comments.filter((c) => c.ownerId === post.ownerId && c.postId === post.id);
        return Promise.resolve(list.length === 2 ? list : undefined);
      },
      30_000,
      'both comments',
    );
    expect(comments.map((c) => c.text)).toEqual(['Soups', 'Borscht']);
    expect(comments.map((c) => c.fromId)).toEqual([`-${BAKERY.id}`, `-${BAKERY.id}`]);
    expect(sim.lookup(`${post.ownerId}_${post.id}_${comments[0]!.id}`)!.mediaSha256).toEqual([png.sha256]);
  });

  it('post analytics: views, likes, reposts and comments', async () => {
    const res = await createPost({}, [{ content: 'counted', image: [] }]);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    sim.setPostStats(post.releaseId!, { views: 340, likes: 12, reposts: 3 });
    const stats = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/analytics/post/${post.id}?date=7` });
    expect(stats.statusCode, stats.body).toBe(200);
    expect(stats.json<{ label: string; data: { total: number | string }[] }[]>().map((s) => [s.label, Number(s.data.at(-1)!.total)])).toEqual([
      ['Views', 340],
      ['Likes', 12],
      ['Reposts', 3],
      ['Comments', 0],
    ]);
  });

  it('an expired 1-hour token is refreshed on the way, and the rotated refresh token is stored', async () => {
    const open = async () => {
      const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.id, channelId));
      return JSON.parse(t.deps.secretBox.open(row!.credentials!)) as { accessToken: string; refreshToken: string };
    };
    const before = await open();
    const refreshes = sim.refreshCount();
    sim.expireAccessTokens();
    const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'communities', data: {} } });
    expect(res.statusCode, res.body).toBe(200);
    expect(sim.refreshCount()).toBe(refreshes + 1);
    const after = await open();
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
  });
});
