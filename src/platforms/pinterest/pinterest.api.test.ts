import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.js';
import type { ManualClock } from '../../lib/clock.js';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';
import type { PinterestSimulator } from './pinterest.simulator.js';
import { PINNER, PINTEREST_APP, pinterestSimulator, platformOriginsFor, RECIPES, TRAVEL } from './pinterest.testkit.js';

/**
 * Pinterest end to end through the HTTP API of a real app with its worker: connecting through
 * `GET /social/pinterest` → the simulator's authorisation page → the callback, the boards tool,
 * validation of pins (board, carousel size, video cover), media uploaded through `POST /upload`
 * and published by the worker — a PNG as base64, a GIF that the simulator pulls from the app's own
 * `/media/…` URL (the app listens on loopback, mapped from PUBLIC_URL), a carousel, and a video
 * whose processing takes several polls — then analytics and a transparent token refresh. The
 * simulator's records are the verdict: pins with the uploaded bytes (sha256), created once.
 */

const PUBLIC_URL = 'https://tidings.example';
const VIDEO_FIXTURE = join(import.meta.dirname, '../../../test/fixtures/media/h264-aac-faststart.mp4');
const GIF_FIXTURE = join(import.meta.dirname, '../../../test/fixtures/media/still-32x24.gif');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: PinterestSimulator;
let dataDir: string;
let channelId: string;
const mediaOrigins: Record<string, string> = {};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-pinterest-'));
  sim = await pinterestSimulator({ videoPollsUntilReady: 3, mediaOrigins });
  sim.apps.get(PINTEREST_APP.clientId)!.redirectUris = [`${PUBLIC_URL}/integrations/social/pinterest/callback`];
  clock = realtimeManualClock();
  t = await buildTestApp({
    clock,
    startWorker: true,
    env: {
      DATA_DIR: dataDir,
      PUBLIC_URL,
      PLATFORM_ORIGINS: platformOriginsFor(sim),
      PINTEREST_CLIENT_ID: PINTEREST_APP.clientId,
      PINTEREST_CLIENT_SECRET: PINTEREST_APP.clientSecret,
    },
  });
  // Pinterest fetches GIFs from PUBLIC_URL: the app really listens, and the simulator maps PUBLIC_URL to it.
  mediaOrigins[PUBLIC_URL] = await t.app.listen({ port: 0, host: '127.0.0.1' });
  org = await t.createOrg('Acme');
});

afterAll(async () => {
  await t?.close();
  await sim?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface Uploaded {
  id: string;
  path: string;
  sha256: string;
}

async function upload(data: Buffer, filename: string): Promise<Uploaded> {
  const item = await uploadMedia(t, org, data, filename);
  return { id: item.id, path: item.path, sha256: sha(data) };
}

async function picture(seed: number, format: 'png' | 'jpeg' = 'png', [w, h] = [64, 48]): Promise<Buffer> {
  const raw = Buffer.alloc(w * h * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 7 + seed * 31) & 255;
  const img = sharp(raw, { raw: { width: w, height: h, channels: 3 } });
  return format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 90 }).toBuffer();
}

interface PostView {
  id: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
  nextAttemptAt: string | null;
  attempts: number;
}

const postBody = (settings: Record<string, unknown>, content: string, image: { id: string; path: string; alt?: string }[]) => ({
  type: 'now',
  shortLink: false,
  tags: [],
  posts: [{ integration: { id: channelId }, settings: { __type: 'pinterest', ...settings }, value: [{ content, image }] }],
});

async function createPost(settings: Record<string, unknown>, content: string, image: { id: string; path: string; alt?: string }[]) {
  return call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/posts', payload: postBody(settings, content, image) });
}

async function getPost(id: string): Promise<PostView> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PostView>();
}

/** Waits until the post is PUBLISHED or ERROR, bringing each next poll forward on the app's clock. */
async function settle(id: string): Promise<{ post: PostView; polls: number }> {
  let polls = 0;
  let last: PostView | undefined;
  const post = await waitFor(
    async () => {
      last = await getPost(id);
      if (last.state === 'PUBLISHED' || last.state === 'ERROR') return last;
      const next = last.nextAttemptAt ? Date.parse(last.nextAttemptAt) : Number.NaN;
      if (next > clock.now()) {
        clock.advance(next - clock.now());
        polls++;
      }
      await releaseDueJobs(t, clock);
      await sleep(50);
      return undefined;
    },
    45_000,
    `post ${id} to be published (last seen ${JSON.stringify(last)})`,
  );
  return { post, polls };
}

async function publish(settings: Record<string, unknown>, content: string, image: { id: string; path: string; alt?: string }[]) {
  const res = await createPost(settings, content, image);
  expect(res.statusCode, res.body).toBe(201);
  const { post, polls } = await settle(res.json<{ postId: string }[]>()[0]!.postId);
  expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
  const pin = sim.pins.find((p) => p.id === post.releaseId);
  expect(pin, `pin ${post.releaseId}`).toBeDefined();
  expect(post.releaseURL).toBe(`https://www.pinterest.com/pin/${post.releaseId}/`);
  return { post, pin: pin!, polls };
}

describe('pinterest through the API', () => {
  it('connects through the authorisation page and the callback', async () => {
    const begun = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/pinterest' });
    expect(begun.statusCode, begun.body).toBe(200);
    const url = new URL(begun.json<{ url: string }>().url);
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/oauth/');
    expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/integrations/social/pinterest/callback`);
    expect(url.searchParams.get('scope')).toBe('boards:read,boards:write,pins:read,pins:write,user_accounts:read');
    const approved = await fetch(url, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    const page = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('Pinterest connected');

    const listed = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
    const channel = listed.json<{ id: string; identifier: string; name: string; profile: string; picture: string }[]>().find((i) => i.identifier === 'pinterest')!;
    expect(channel).toMatchObject({ name: 'Acme Kitchen', profile: 'acmekitchen', picture: PINNER.profile_image });
    channelId = channel.id;
    const [row] = await t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, org.id)));
    expect(row!.internalId).toBe(PINNER.id);
  });

  it('the boards tool lists the account’s boards', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'boards', data: {} } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ output: [{ id: TRAVEL, name: 'Travel' }, { id: RECIPES, name: 'Recipes' }] });
  });

  it('refuses a pin without a board, a video without a cover and a carousel of six, naming the field', async () => {
    const png = await upload(await picture(1), 'a.png');
    const video = await upload(await readFile(VIDEO_FIXTURE), 'clip.mp4');
    const paths = (res: Awaited<ReturnType<typeof createPost>>) => [...new Set(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))];
    expect(paths(await createPost({ title: 'x' }, 'no board', [png]))).toEqual(['posts.0.settings.board']);
    expect(paths(await createPost({ board: RECIPES }, 'no cover', [video]))).toEqual(['posts.0.value.0.image']);
    const six = await Promise.all([2, 3, 4, 5, 6, 7].map(async (n) => upload(await picture(n), `s${n}.png`)));
    expect(paths(await createPost({ board: RECIPES }, 'six', six))).toEqual(['posts.0.value.0.image']);
    expect(sim.pins).toHaveLength(0);
  });

  it('a PNG is published as a base64 pin with the settings, byte for byte', async () => {
    const png = await upload(await picture(10), 'soup.png');
    const { pin } = await publish({ board: RECIPES, title: 'Autumn soup', link: 'https://example.com/soup', dominant_color: '#aa5500' }, '<p>Pumpkin <strong>soup</strong></p>', [{ ...png, alt: 'A bowl of soup' }]);
    expect(pin).toMatchObject({ boardId: RECIPES, title: 'Autumn soup', description: 'Pumpkin soup', link: 'https://example.com/soup', dominantColor: '#aa5500', altText: 'A bowl of soup', sourceType: 'image_base64' });
    expect(pin.images.map((i) => i.sha256)).toEqual([png.sha256]);
  });

  it('a GIF is pulled by Pinterest from the app’s public media URL', async () => {
    const gifBytes = await readFile(GIF_FIXTURE);
    const gif = await upload(gifBytes, 'still.gif');
    expect(gif.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
    const { pin } = await publish({ board: TRAVEL }, 'A moving picture', [gif]);
    expect(pin.sourceType).toBe('image_url');
    expect(pin.images).toEqual([{ source: 'url', url: gif.path, sha256: gif.sha256, size: gifBytes.length, contentType: 'image/gif' }]);
  });

  it('three pictures of one size are published as a carousel, in order', async () => {
    const items = await Promise.all([21, 22, 23].map(async (n) => upload(await picture(n, n === 22 ? 'jpeg' : 'png'), `c${n}.${n === 22 ? 'jpg' : 'png'}`)));
    const { pin } = await publish({ board: RECIPES, title: 'Three steps' }, 'Step by step', items);
    expect(pin.sourceType).toBe('multiple_image_base64');
    expect(pin.images.map((i) => i.sha256)).toEqual(items.map((i) => i.sha256));
  });

  it('a video with its cover: uploaded, processed over several polls, published once', async () => {
    const videoBytes = await readFile(VIDEO_FIXTURE);
    const video = await upload(videoBytes, 'clip.mp4');
    const cover = await upload(await picture(30, 'jpeg'), 'cover.jpg');
    const pinsBefore = sim.pins.length;
    const { post, pin, polls } = await publish({ board: RECIPES, title: 'Soup in motion' }, 'Watch it simmer', [video, cover]);
    expect(polls).toBeGreaterThanOrEqual(3);
    expect(pin).toMatchObject({ sourceType: 'video_id', title: 'Soup in motion', description: 'Watch it simmer', videoSha256: sha(videoBytes) });
    expect(pin.cover).toMatchObject({ source: 'base64', sha256: cover.sha256, contentType: 'image/jpeg' });
    const m = sim.media.get(pin.mediaId!)!;
    expect({ status: m.status, uploads: m.uploads, size: m.size }).toEqual({ status: 'succeeded', uploads: 1, size: videoBytes.length });
    expect(sim.pins.length - pinsBefore).toBe(1);
    expect(sim.log.filter((l) => l.method === 'GET' && l.path === `/v5/media/${pin.mediaId}`).length).toBeGreaterThanOrEqual(4);
    expect(post.releaseId).toBe(pin.id);
  });

  it('analytics of the account and of a published pin', async () => {
    const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString().slice(0, 10);
    sim.setAccountAnalytics(PINNER.id, [{ date: today, metrics: { IMPRESSION: 321, SAVE: 4 } }]);
    const account = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/analytics/${channelId}?date=7` });
    expect(account.statusCode, account.body).toBe(200);
    const series = account.json<{ label: string; data: { total: number | string; date: string }[] }[]>();
    expect(series.map((s) => s.label)).toEqual(['Impressions', 'Engagements', 'Pin clicks', 'Outbound clicks', 'Saves']);
    expect(series[0]!.data).toHaveLength(7);
    expect(series[0]!.data.at(-1)).toEqual({ date: today, total: 321 });

    const res = await createPost({ board: RECIPES }, 'counted', [await upload(await picture(40), 'counted.png')]);
    const { post } = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    sim.setPinAnalytics(post.releaseId!, [{ date: today, metrics: { IMPRESSION: 77, PIN_CLICK: 5 } }]);
    const pinStats = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/analytics/post/${post.id}?date=7` });
    expect(pinStats.statusCode, pinStats.body).toBe(200);
    const ps = pinStats.json<{ label: string; data: { total: number | string; date: string }[] }[]>();
    expect(ps.map((s) => s.label)).toEqual(['Impressions', 'Pin clicks', 'Outbound clicks', 'Saves']);
    expect(ps[0]!.data.at(-1)).toEqual({ date: today, total: 77 });
  });

  it('an expired access token is refreshed on the way, and the rotated refresh token is stored', async () => {
    const open = async () => {
      const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.id, channelId));
      return JSON.parse(t.deps.secretBox.open(row!.credentials!)) as { accessToken: string; refreshToken: string };
    };
    const before = await open();
    const refreshes = sim.refreshCount();
    sim.expireAccessTokens();
    const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'boards', data: {} } });
    expect(res.statusCode, res.body).toBe(200);
    expect(sim.refreshCount()).toBe(refreshes + 1);
    const after = await open();
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
  });
});
