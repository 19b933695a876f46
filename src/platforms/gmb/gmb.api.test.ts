import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../lib/clock.js';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';
import type { GmbSimulator } from './gmb.simulator.js';
import { BAKERY, CAFE, GMB_APP, gmbSimulator, GROUP, PERSONAL, platformOriginsEnv, sha } from './gmb.testkit.js';

/**
 * Google Business Profile end to end through the HTTP API of a real app with its worker, against
 * the simulator: connect (`GET /social/gmb` → Google's consent → the callback), the locations
 * tool and the location switch (`PUT /integrations/{id}/account`), settings refused by field
 * before anything is sent, an EVENT with a photo uploaded through `POST /upload` that Google
 * fetches from the app's own public media URL (the app listens on loopback, mapped from
 * PUBLIC_URL) — verified in the simulator's records by sha256 — then the daily metrics.
 */

const PUBLIC_URL = 'https://tidings.example';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sim: GmbSimulator;
let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let dataDir: string;
let channelId: string;
const mediaOrigins: Record<string, string> = {};

interface PostView {
  id: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
  nextAttemptAt: string | null;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-gmb-api-'));
  sim = await gmbSimulator({ mediaOrigins, reviewReads: 1 });
  sim.apps.get(GMB_APP.clientId)!.redirectUris = [`${PUBLIC_URL}/integrations/social/gmb/callback`];
  clock = realtimeManualClock();
  t = await buildTestApp({
    clock,
    startWorker: true,
    env: { DATA_DIR: dataDir, PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsEnv(sim), GMB_CLIENT_ID: GMB_APP.clientId, GMB_CLIENT_SECRET: GMB_APP.clientSecret },
  });
  // Google fetches photos from PUBLIC_URL: the app really listens, and the simulator maps PUBLIC_URL to it.
  mediaOrigins[PUBLIC_URL] = await t.app.listen({ port: 0, host: '127.0.0.1' });
  org = await t.createOrg('Acme');
});

afterAll(async () => {
  await t?.close();
  await sim?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function getPost(id: string): Promise<PostView> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PostView>();
}

/** Waits until the post is PUBLISHED or ERROR, bringing each next attempt forward (clock + queue). */
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

const createPost = (settings: Record<string, unknown>, content: string, image: { id: string; path: string }[] = []) =>
  call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'gmb', ...settings }, value: [{ content, image }] }] },
  });

async function picture(seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(64 * 48 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 7 + seed * 31) & 255;
  return sharp(raw, { raw: { width: 64, height: 48, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

describe('gmb through the HTTP API', () => {
  it('connects through Google consent with offline access: the first location of the grant', async () => {
    const begun = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/gmb' });
    expect(begun.statusCode, begun.body).toBe(200);
    const url = new URL(begun.json<{ url: string }>().url);
    expect(url.origin).toBe(sim.origin);
    expect({ access: url.searchParams.get('access_type'), prompt: url.searchParams.get('prompt') }).toEqual({ access: 'offline', prompt: 'consent' });
    const approved = await fetch(url, { redirect: 'manual' });
    expect(approved.status, await approved.clone().text()).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    const page = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(page.statusCode, page.body).toBe(200);
    const list = (await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' })).json<{ id: string; identifier: string; name: string }[]>();
    const channel = list.find((i) => i.identifier === 'gmb')!;
    expect(channel.name).toBe(BAKERY.title);
    channelId = channel.id;
    const row = await t.deps.repositories.integrations.findById(channelId);
    expect(row!.internalId).toBe(`locations/${BAKERY.id}`);
    expect(JSON.parse(t.deps.secretBox.open(row!.credentials!))).toMatchObject({ accountName: PERSONAL, refreshToken: expect.stringMatching(/^1\/\/0/) });
  });

  it('lists the locations and switches the channel to another one (PUT /integrations/{id}/account)', async () => {
    const tool = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'locations', data: {} } });
    expect(tool.statusCode, tool.body).toBe(200);
    expect(tool.json<{ output: { id: string; current: boolean }[] }>().output.map((l) => [l.id, l.current])).toEqual([
      [`locations/${BAKERY.id}`, true],
      [`locations/${CAFE.id}`, false],
    ]);
    const switched = await call(t.app, org.apiKey, { method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: `locations/${CAFE.id}` } });
    expect(switched.statusCode, switched.body).toBe(200);
    const row = await t.deps.repositories.integrations.findById(channelId);
    expect(row!.internalId).toBe(`locations/${CAFE.id}`);
    expect(JSON.parse(t.deps.secretBox.open(row!.credentials!))).toMatchObject({ accountName: GROUP, locationName: `locations/${CAFE.id}` });
  });

  it('refuses an offer without its title and dates, a button without a URL and two photos, naming the fields; nothing is sent', async () => {
    const paths = (res: Awaited<ReturnType<typeof createPost>>) => [...new Set(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))].sort();
    expect(paths(await createPost({ topicType: 'OFFER', offerCouponCode: 'X' }, 'Deal'))).toEqual(['posts.0.settings.eventEndDate', 'posts.0.settings.eventStartDate', 'posts.0.settings.eventTitle']);
    expect(paths(await createPost({ callToActionType: 'BOOK' }, 'Book now'))).toEqual(['posts.0.settings.callToActionUrl']);
    const a = await uploadMedia(t, org, await picture(1), 'a.jpg');
    const b = await uploadMedia(t, org, await picture(2), 'b.jpg');
    expect(paths(await createPost({}, 'Two', [{ id: a.id, path: a.path }, { id: b.id, path: b.path }]))).toEqual(['posts.0.value.0.image']);
    expect(sim.posts).toHaveLength(0);
  });

  it('publishes an EVENT with a photo Google fetched from the app, reviewed then LIVE, byte for byte', async () => {
    const bytes = await picture(3);
    const media = await uploadMedia(t, org, bytes, 'fair.jpg');
    expect(media.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
    const settings = { topicType: 'EVENT', eventTitle: 'Harbour fair', eventStartDate: '2026-07-01', eventEndDate: '2026-07-02', eventStartTime: '10:00', eventEndTime: '17:00', callToActionType: 'LEARN_MORE', callToActionUrl: 'https://cafe.example/fair' };
    const res = await createPost(settings, '<p>Coffee &amp; <strong>cake</strong> by the water</p>', [{ id: media.id, path: media.path }]);
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    expect(sim.posts).toHaveLength(1);
    const p = sim.posts[0]!;
    expect(post.releaseId).toBe(p.name);
    expect(post.releaseURL).toBe(p.searchUrl);
    expect(p).toMatchObject({
      locationId: CAFE.id,
      accountName: GROUP,
      state: 'LIVE',
      summary: 'Coffee & cake by the water',
      callToAction: { actionType: 'LEARN_MORE', url: 'https://cafe.example/fair' },
      event: { title: 'Harbour fair', schedule: { startDate: { year: 2026, month: 7, day: 1 }, startTime: { hours: 10, minutes: 0 } } },
    });
    expect(p.media.map((m) => [m.sourceUrl, m.sha256])).toEqual([[media.path, sha(bytes)]]);
  });

  it('an expired access token is refreshed on the way, keeping the refresh token', async () => {
    const open = async () => {
      const row = await t.deps.repositories.integrations.findById(channelId);
      return JSON.parse(t.deps.secretBox.open(row!.credentials!)) as { accessToken: string; refreshToken: string };
    };
    const before = await open();
    const refreshes = sim.refreshCount();
    sim.expireAccessTokens();
    const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'locations', data: {} } });
    expect(res.statusCode, res.body).toBe(200);
    expect(sim.refreshCount()).toBe(refreshes + 1);
    const after = await open();
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).toBe(before.refreshToken);
  });

  it('daily metrics of the location', async () => {
    const today = new Date(Math.floor(clock.now() / 86_400_000) * 86_400_000).toISOString().slice(0, 10);
    sim.setDailyMetrics(CAFE.id, [{ date: today, metrics: { BUSINESS_IMPRESSIONS_MOBILE_SEARCH: 40, BUSINESS_IMPRESSIONS_MOBILE_MAPS: 2, WEBSITE_CLICKS: 3 } }]);
    const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/analytics/${channelId}?date=7` });
    expect(res.statusCode, res.body).toBe(200);
    const series = res.json<{ label: string; data: { total: number | string; date: string }[] }[]>();
    expect(series.map((s) => s.label)).toEqual(['Impressions', 'Website clicks', 'Calls', 'Direction requests', 'Conversations', 'Bookings']);
    expect(series[0]!.data).toHaveLength(7);
    expect(series[0]!.data.at(-1)).toEqual({ date: today, total: 42 });
    expect(series[1]!.data.at(-1)).toEqual({ date: today, total: 3 });
  });
});
