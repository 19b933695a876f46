import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
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
import type { MeweSimulator, MeweSimulatorOptions } from './mewe.simulator.js';
import { ALICE, CLOSED, GARDEN, MEWE_APP, meweSimulator, platformOriginsFor } from './mewe.testkit.js';

/**
 * MeWe end to end through the HTTP API of a real app with its worker: `GET /social/mewe` → the
 * login page (the app id as client_id) → the callback with `loginRequestToken` (not `code`) → the
 * token exchange with the deployment's app id/key; a login not approved yet answers the callback
 * page with that reason and stores nothing. Then the groups tool, a group post with two photos and
 * a timeline post through `POST /posts`, MeWe's "Forbidden" kept in the post's error, and a revoked
 * token marking the channel for reconnection. The simulator's records are the verdict — but the
 * simulator encodes the reference's description of MeWe's undocumented developer API plus our
 * assumptions (see mewe.simulator.ts), not verified behaviour of MeWe.
 */

const PUBLIC_URL = 'https://tidings.example';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: MeweSimulator;
const simOpts: MeweSimulatorOptions = {};
let dataDir: string;
let channelId: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-mewe-'));
  sim = await meweSimulator(simOpts);
  clock = realtimeManualClock();
  t = await buildTestApp({
    clock,
    startWorker: true,
    env: { DATA_DIR: dataDir, PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), MEWE_CLIENT_ID: MEWE_APP.clientId, MEWE_CLIENT_SECRET: MEWE_APP.clientSecret },
  });
  org = await t.createOrg('Acme');
});

afterAll(async () => {
  await t?.close();
  await sim?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface PostView {
  id: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
  nextAttemptAt: string | null;
}

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
    30_000,
    `post ${id} to settle (last seen ${JSON.stringify(last)})`,
  );
}

const createPost = (settings: Record<string, unknown>, content: string, image: { id: string; path: string }[] = []) =>
  call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'mewe', ...settings }, value: [{ content, image }] }] },
  });

async function picture(seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(24 * 16 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 11 + seed * 23) & 255;
  return sharp(raw, { raw: { width: 24, height: 16, channels: 3 } }).png().toBuffer();
}

/** Opens the login page the app hands out and follows MeWe's redirect back to the app's callback. */
async function login() {
  const begun = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/mewe' });
  expect(begun.statusCode, begun.body).toBe(200);
  const url = new URL(begun.json<{ url: string }>().url);
  expect(url.origin).toBe(sim.origin);
  expect(url.pathname).toBe('/login');
  expect(url.searchParams.get('client_id')).toBe(MEWE_APP.clientId);
  expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/integrations/social/mewe/callback`);
  const approved = await fetch(url, { redirect: 'manual' });
  expect(approved.status).toBe(302);
  const back = new URL(approved.headers.get('location')!);
  expect(back.searchParams.get('loginRequestToken')).toMatch(/^[0-9a-f]{40}$/);
  expect(back.searchParams.has('code')).toBe(false);
  return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
}

describe('mewe through the API (simulated undocumented API: assumptions, not verified behaviour)', () => {
  it('a login the user has not approved yet answers the callback page with that reason and stores no channel', async () => {
    simOpts.holdApproval = true;
    const page = await login();
    simOpts.holdApproval = false;
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain('has not been approved on MeWe yet');
    expect(await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id))).toHaveLength(0);
  });

  it('connects through the login page and the callback with loginRequestToken', async () => {
    const page = await login();
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('MeWe connected');
    const listed = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
    const channel = listed.json<{ id: string; identifier: string; name: string; profile: string }[]>().find((i) => i.identifier === 'mewe')!;
    expect(channel).toMatchObject({ name: 'Alice Example', profile: ALICE.handle });
    channelId = channel.id;
    const [row] = await t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, org.id)));
    expect(row!.internalId).toBe(ALICE.userId);
    expect(row!.tokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    const exchange = sim.log.filter((l) => l.path.startsWith('/api/dev/token')).at(-1)!;
    expect(exchange.headers).toMatchObject({ 'x-app-id': MEWE_APP.clientId, 'x-api-key': MEWE_APP.clientSecret });

    const settings = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/integration-settings/${channelId}` });
    expect(settings.json<{ output: { rules: string } }>().output.rules).toMatch(/nothing here is verified against public documentation.*Assumed:/s);
  });

  it('the groups tool lists the account’s groups over every page', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'groups', data: {} } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ output: { id: string }[] }>().output.map((g) => g.id)).toEqual(ALICE.groups);
  });

  it('refuses a group post without a group, naming the field, before anything is sent', async () => {
    const res = await createPost({ postType: 'group' }, '<p>x</p>');
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['posts.0.settings.group']);
    expect(sim.posts).toHaveLength(0);
  });

  it('publishes a group post with two photos (byte for byte), and a timeline post', async () => {
    const [a, b] = [await picture(1), await picture(2)];
    const ma = await uploadMedia(t, org, a, 'a.png');
    const mb = await uploadMedia(t, org, b, 'b.png');
    const res = await createPost({ postType: 'group', group: GARDEN.groupId }, '<p>Seed <em>swap</em> on Sunday</p>', [
      { id: ma.id, path: ma.path },
      { id: mb.id, path: mb.path },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    const made = sim.posts.find((p) => p.postItemId === post.releaseId)!;
    expect(made).toMatchObject({ groupId: GARDEN.groupId, text: 'Seed swap on Sunday', userId: ALICE.userId });
    expect(made.photos.map((p) => p.sha256)).toEqual([sha(a), sha(b)]);
    expect(post.releaseURL).toBe('https://mewe.com/group/g-garden');

    const tl = await createPost({ postType: 'timeline' }, '<p>Hello MeWe</p>');
    const tlPost = await settle(tl.json<{ postId: string }[]>()[0]!.postId);
    expect(tlPost.state).toBe('PUBLISHED');
    expect(tlPost.releaseURL).toBe(`https://mewe.com/${ALICE.handle}/posts`);
    expect(sim.posts.find((p) => p.postItemId === tlPost.releaseId)).toMatchObject({ groupId: null, text: 'Hello MeWe' });
  });

  it('"Forbidden" (not a member of the group) fails the post with MeWe’s word', async () => {
    const before = sim.posts.length;
    const res = await createPost({ postType: 'group', group: CLOSED.groupId }, '<p>hi</p>');
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/MeWe refused: Forbidden/);
    expect(sim.posts.length).toBe(before);
  });

  it('a revoked apiToken ("Unauthorized") fails the post and marks the channel for reconnection', async () => {
    sim.revoke(ALICE.userId);
    const res = await createPost({ postType: 'timeline' }, '<p>after revoke</p>');
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/Unauthorized/);
    const listed = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
    expect(listed.json<{ id: string; refreshNeeded: boolean }[]>().find((i) => i.id === channelId)!.refreshNeeded).toBe(true);
  });
});
