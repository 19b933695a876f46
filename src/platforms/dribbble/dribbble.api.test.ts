import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../lib/clock.js';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';
import type { DribbbleSimulator } from './dribbble.simulator.js';
import { DRIBBBLE_APP, dribbbleSimulator, platformOriginsEnv, PLAYER, sha, STUDIO } from './dribbble.testkit.js';

/**
 * Dribbble end to end through the HTTP API of a real app with its worker, against the simulator:
 * connect (`GET /social/dribbble` → Dribbble's authorisation page → the callback), the teams
 * tool, a picture of a size Dribbble refuses named on `value.0.image` before anything is sent,
 * then a 400×300 PNG uploaded through `POST /upload` and published by the worker as a team shot
 * with title and tags — verified in the simulator's records by sha256.
 */

const PUBLIC_URL = 'https://tidings.example';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let sim: DribbbleSimulator;
let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let dataDir: string;
let channelId: string;

interface PostView {
  id: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
  nextAttemptAt: string | null;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-dribbble-api-'));
  sim = await dribbbleSimulator();
  sim.apps.get(DRIBBBLE_APP.clientId)!.redirectUris = [`${PUBLIC_URL}/integrations/social/dribbble/callback`];
  clock = realtimeManualClock();
  t = await buildTestApp({
    clock,
    startWorker: true,
    env: { DATA_DIR: dataDir, PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsEnv(sim), DRIBBBLE_CLIENT_ID: DRIBBBLE_APP.clientId, DRIBBBLE_CLIENT_SECRET: DRIBBBLE_APP.clientSecret },
  });
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

const createPost = (settings: Record<string, unknown>, content: string, image: { id: string; path: string }[]) =>
  call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'dribbble', ...settings }, value: [{ content, image }] }] },
  });

async function picture(width: number, height: number, seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 7 + seed * 31) & 255;
  return sharp(raw, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

describe('dribbble through the HTTP API', () => {
  it('connects through the authorisation page and the callback', async () => {
    const begun = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/dribbble' });
    expect(begun.statusCode, begun.body).toBe(200);
    const url = new URL(begun.json<{ url: string }>().url);
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/oauth/authorize');
    expect(url.searchParams.get('scope')).toBe('public upload');
    const approved = await fetch(url, { redirect: 'manual' });
    expect(approved.status, await approved.clone().text()).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    const page = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(page.statusCode, page.body).toBe(200);
    const list = (await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' })).json<{ id: string; identifier: string; name: string; profile: string }[]>();
    const channel = list.find((i) => i.identifier === 'dribbble')!;
    expect(channel).toMatchObject({ name: PLAYER.name, profile: PLAYER.login });
    channelId = channel.id;
    const row = await t.deps.repositories.integrations.findById(channelId);
    expect(row!.internalId).toBe(String(PLAYER.id));
    expect(row!.tokenExpiresAt).toBeNull();
  });

  it('the teams tool lists the account’s teams', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'teams', data: {} } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ output: [{ id: String(STUDIO.id), name: STUDIO.name, url: `https://dribbble.com/${STUDIO.login}` }] });
  });

  it('refuses a picture Dribbble would not take and a shot without a title, naming the field; nothing is sent', async () => {
    const paths = (res: Awaited<ReturnType<typeof createPost>>) => [...new Set(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))];
    const wide = await uploadMedia(t, org, await picture(640, 480, 1), 'wide.png');
    expect(paths(await createPost({ title: 'Wrong size' }, 'x', [{ id: wide.id, path: wide.path }]))).toEqual(['posts.0.value.0.image']);
    const good = await uploadMedia(t, org, await picture(400, 300, 2), 'good.png');
    expect(paths(await createPost({}, 'x', [{ id: good.id, path: good.path }]))).toEqual(['posts.0.settings.title']);
    expect(sim.shots).toHaveLength(0);
  });

  it('a draft with a picture of the wrong size: GET /posts/{id}/missing names value.0.image', async () => {
    const wide = await uploadMedia(t, org, await picture(800, 800, 4), 'square.png');
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: { type: 'draft', date: new Date(clock.now() + 86_400_000).toISOString(), shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'dribbble', title: 'Square' }, value: [{ content: 'x', image: [{ id: wide.id, path: wide.path }] }] }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const missing = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${res.json<{ postId: string }[]>()[0]!.postId}/missing` });
    expect(missing.statusCode, missing.body).toBe(200);
    expect(missing.json()).toMatchObject({ ready: false, missing: [{ field: 'value.0.image', code: 'dimensions', message: expect.stringContaining('this picture is 800×800') }] });
  });

  it('publishes a 400×300 PNG as a team shot with title and tags, byte for byte', async () => {
    const bytes = await picture(400, 300, 3);
    const media = await uploadMedia(t, org, bytes, 'shot.png');
    const res = await createPost({ title: 'Onboarding flow', team: `https://dribbble.com/${STUDIO.login}`, tags: ['ui', 'onboarding'] }, '<p>Three screens, <em>one</em> idea</p>', [{ id: media.id, path: media.path }]);
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    expect(sim.shots).toHaveLength(1);
    const shot = sim.shots[0]!;
    expect(post.releaseId).toBe(String(shot.id));
    expect(post.releaseURL).toBe(`https://dribbble.com/shots/${shot.id}`);
    expect(shot).toMatchObject({ title: 'Onboarding flow', description: 'Three screens, one idea', tags: ['ui', 'onboarding'], teamId: STUDIO.id });
    expect(shot.image).toMatchObject({ sha256: sha(bytes), width: 400, height: 300, contentType: 'image/png' });
  });
});
