import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.js';
import type { ManualClock } from '../../lib/clock.js';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';
import type { WrapcastSimulator } from './wrapcast.simulator.js';
import { ALICE, NEYNAR_APP, platformOriginsFor, sha, wrapcastSimulator } from './wrapcast.testkit.js';

/**
 * Farcaster end to end through the HTTP API of a real app with its worker: Sign in with Neynar
 * through `GET /social/wrapcast` → the simulator's login page → the callback (which carries
 * `signer_uuid` and `fid` instead of a code), the channel search tool, a cast with two pictures
 * that the simulator fetches from the app's own public media URLs (byte for byte), in a channel,
 * with a reply, then the cast's reactions as post analytics.
 */

const PUBLIC_URL = 'https://tidings.example';
const CALLBACK = `${PUBLIC_URL}/integrations/social/wrapcast/callback`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: WrapcastSimulator;
let dataDir: string;
let channelId: string;
const mediaOrigins: Record<string, string> = {};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-wrapcast-'));
  sim = await wrapcastSimulator({ mediaOrigins });
  clock = realtimeManualClock();
  t = await buildTestApp({
    clock,
    startWorker: true,
    env: {
      DATA_DIR: dataDir,
      PUBLIC_URL,
      PLATFORM_ORIGINS: platformOriginsFor(sim),
      WRAPCAST_CLIENT_ID: NEYNAR_APP.clientId,
      WRAPCAST_CLIENT_SECRET: NEYNAR_APP.apiKey,
    },
  });
  // Farcaster clients fetch embeds from PUBLIC_URL: the app really listens, and the simulator maps PUBLIC_URL to it.
  mediaOrigins[PUBLIC_URL] = await t.app.listen({ port: 0, host: '127.0.0.1' });
  org = await t.createOrg('Acme');
});

afterAll(async () => {
  await t?.close();
  await sim?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function picture(seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(32 * 24 * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 5 + seed * 17) & 255;
  return sharp(raw, { raw: { width: 32, height: 24, channels: 3 } }).png().toBuffer();
}

interface PostView {
  id: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
}

async function settle(id: string): Promise<PostView> {
  let last: PostView | undefined;
  return waitFor(
    async () => {
      const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
      last = res.json<PostView>();
      if (last.state === 'PUBLISHED' || last.state === 'ERROR') return last;
      await releaseDueJobs(t, clock);
      await sleep(50);
      return undefined;
    },
    45_000,
    `post ${id} to be published (last seen ${JSON.stringify(last)})`,
  );
}

/** Begins at the API and approves at the simulator: where the browser is sent back to. */
async function signInWithNeynar(): Promise<URL> {
  const begun = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/wrapcast' });
  expect(begun.statusCode, begun.body).toBe(200);
  const url = new URL(begun.json<{ url: string }>().url);
  expect(url.origin).toBe(sim.origin);
  expect(url.pathname).toBe('/login');
  expect(url.searchParams.get('client_id')).toBe(NEYNAR_APP.clientId);
  const approved = await fetch(url, { redirect: 'manual' });
  expect(approved.status).toBe(302);
  const back = new URL(approved.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
  return back;
}

describe('wrapcast through the API', () => {
  it('a callback without signer_uuid is refused naming it, and one whose fid is not the signer’s stores nothing', async () => {
    const back = await signInWithNeynar();
    const noSigner = new URLSearchParams(back.search);
    noSigner.delete('signer_uuid');
    const page = await t.app.inject({ method: 'GET', url: `${back.pathname}?${noSigner.toString()}` });
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain('signer_uuid: Required');

    const again = await signInWithNeynar();
    again.searchParams.set('fid', '999');
    const wrongFid = await t.app.inject({ method: 'GET', url: `${again.pathname}${again.search}` });
    expect(wrongFid.statusCode).toBe(400);
    expect(wrongFid.body).toContain('belongs to Farcaster account 6131, not 999');
    const listed = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
    expect(listed.json<unknown[]>()).toEqual([]);
  });

  it('connects through Sign in with Neynar and the callback', async () => {
    const back = await signInWithNeynar();
    expect(back.searchParams.get('fid')).toBe(String(ALICE.fid));
    const page = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.body).toContain('Farcaster connected');

    const listed = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
    const channel = listed.json<{ id: string; identifier: string; name: string; profile: string; picture: string }[]>().find((i) => i.identifier === 'wrapcast')!;
    expect(channel).toMatchObject({ name: ALICE.display_name, profile: ALICE.username });
    channelId = channel.id;
    const [row] = await t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, org.id)));
    expect(row!.internalId).toBe(String(ALICE.fid));
    const creds = JSON.parse(t.deps.secretBox.open(row!.credentials!)) as { signerUuid: string; fid: number };
    expect(creds).toMatchObject({ signerUuid: back.searchParams.get('signer_uuid'), fid: ALICE.fid });
  });

  it('the subreddits tool searches Farcaster channels', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'subreddits', data: { word: 'mem' } } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ output: { id: string }[] }>().output.map((c) => c.id)).toEqual(['memes']);
  });

  it('refuses two channels and a cast over 320 bytes when the post is made, naming the field', async () => {
    const make = (settings: Record<string, unknown>, content: string) =>
      call(t.app, org.apiKey, {
        method: 'POST',
        url: '/public/v1/posts',
        payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'wrapcast', ...settings }, value: [{ content, image: [] }] }] },
      });
    const two = await make({ subreddit: [{ value: { id: 'dev' } }, { value: { id: 'memes' } }] }, 'two channels');
    expect(two.statusCode).toBe(400);
    expect(two.json<{ fields: { path: string }[] }>().fields.map((f) => f.path)).toContain('posts.0.settings.subreddit');
    const long = await make({}, 'é'.repeat(161));
    expect(long.statusCode).toBe(400);
    expect(long.json<{ fields: { path: string }[] }>().fields.map((f) => f.path)).toContain('posts.0.value.0.content');
    expect(sim.casts).toHaveLength(0);
  });

  it('publishes a cast with two pictures in a channel, and its reply, through POST /posts; then its reactions', async () => {
    const bytes = [await picture(1), await picture(2)];
    const media = await Promise.all(bytes.map((b, i) => uploadMedia(t, org, b, `p${i}.png`)));
    expect(media[0]!.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: {
        type: 'now',
        shortLink: false,
        tags: [],
        posts: [
          {
            integration: { id: channelId },
            settings: { __type: 'wrapcast', subreddit: [{ value: { id: 'memes' } }] },
            value: [
              { content: '<p>Two <strong>pictures</strong> ☕</p>', image: media.map((m) => ({ id: m.id, path: m.path })) },
              { content: '<p>and a reply</p>', image: [] },
            ],
          },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    const first = sim.cast(post.releaseId!)!;
    expect(first).toMatchObject({ fid: ALICE.fid, text: 'Two pictures ☕', channelId: 'memes', parentHash: null });
    expect(first.embeds.map((e) => e.sha256)).toEqual(bytes.map(sha));
    expect(first.embeds.map((e) => e.url)).toEqual(media.map((m) => m.path));
    expect(post.releaseURL).toBe(`https://farcaster.xyz/${ALICE.username}/${first.hash.slice(0, 10)}`);
    await waitFor(async () => sim.casts.find((c) => c.parentHash === first.hash), 30_000, 'the reply');
    const reply = sim.casts.find((c) => c.parentHash === first.hash)!;
    expect(reply).toMatchObject({ text: 'and a reply', channelId: null, embeds: [] });
    expect(sim.casts).toHaveLength(2);

    Object.assign(first, { likes: 12, recasts: 4 });
    const stats = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/analytics/post/${post.id}?date=7` });
    expect(stats.statusCode, stats.body).toBe(200);
    expect(stats.json<{ label: string; data: { total: number | string }[] }[]>().map((s) => [s.label, Number(s.data[0]!.total)])).toEqual([
      ['Likes', 12],
      ['Recasts', 4],
      ['Replies', 1],
    ]);
  });
});
