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
import { buildTestApp, call, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';
import type { WhopSimulator } from './whop.simulator.js';
import { ACME, LABS, platformOriginsFor, USER, WHOP_APP, whopSimulator } from './whop.testkit.js';

/**
 * Whop end to end through the HTTP API of a real app with its worker: `GET /social/whop` → the
 * simulator's authorisation page (PKCE, nonce) → the callback, the `companies` and `experiences`
 * tools, then a post with a picture and a thread item published by the worker into the chosen
 * experience — the picture created as a Whop file, PUT to the pre-signed storage address, polled
 * until ready (the publisher comes back for it), the item a comment by `parent_id` — and an expired
 * access token refreshed on the way. The simulator's records are the verdict (bytes by sha256).
 */

const PUBLIC_URL = 'https://tidings.example';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NEWS = ACME.forums[0]!.experienceId;

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: WhopSimulator;
let dataDir: string;
let channelId: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-whop-'));
  clock = realtimeManualClock();
  sim = await whopSimulator({ processingPolls: 1, now: () => clock.now(), redirectUris: [`${PUBLIC_URL}/integrations/social/whop/callback`] });
  t = await buildTestApp({
    clock,
    startWorker: true,
    env: { DATA_DIR: dataDir, PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim), WHOP_CLIENT_ID: WHOP_APP.clientId, WHOP_CLIENT_SECRET: WHOP_APP.clientSecret },
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
}

async function picture(seed: number): Promise<Buffer> {
  const [w, h] = [32, 24];
  const raw = Buffer.alloc(w * h * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 5 + seed * 17) & 255;
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } }).png().toBuffer();
}

function createPost(settings: Record<string, unknown>, value: { content: string; image: { id: string; path: string }[] }[]) {
  return call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'whop', ...settings }, value }] },
  });
}

async function settle(id: string, done: () => boolean = () => true): Promise<PostView> {
  let last: PostView | undefined;
  return waitFor(
    async () => {
      const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
      last = res.json<PostView>();
      if (last.state === 'ERROR' || (last.state === 'PUBLISHED' && done())) return last;
      // The publisher's next look at the files (and the thread item) comes with the app's time.
      clock.advance(2_000);
      await releaseDueJobs(t, clock);
      await sleep(50);
      return undefined;
    },
    30_000,
    `post ${id} (last seen ${JSON.stringify(last)})`,
  );
}

describe('whop through the API', () => {
  it('connects through the authorisation page and the callback', async () => {
    const begun = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/whop' });
    expect(begun.statusCode, begun.body).toBe(200);
    const url = new URL(begun.json<{ url: string }>().url);
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/oauth/authorize');
    expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/integrations/social/whop/callback`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const approved = await fetch(url, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    const page = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(page.statusCode, page.body).toBe(200);

    const listed = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
    const channel = listed.json<{ id: string; identifier: string; name: string; profile: string }[]>().find((i) => i.identifier === 'whop')!;
    expect(channel).toMatchObject({ name: USER.name, profile: USER.username });
    channelId = channel.id;
    const [row] = await t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, org.id)));
    expect(row!.internalId).toBe(USER.id);
  });

  it('the companies and experiences tools', async () => {
    const tool = async (methodName: string, data: Record<string, unknown>) => {
      const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName, data } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ output: unknown }>().output;
    };
    expect(await tool('companies', {})).toEqual([
      { id: ACME.id, name: ACME.title },
      { id: LABS.id, name: LABS.title },
    ]);
    expect(await tool('experiences', { id: ACME.id })).toEqual(ACME.forums.map((f) => ({ id: f.experienceId, name: f.name })));
  });

  it('publishes a forum post with a picture (uploaded, polled until ready) and a comment, refreshing an expired token on the way', async () => {
    const bytes = await picture(3);
    const png = await uploadMedia(t, org, bytes, 'launch.png');
    sim.expireAccessTokens();
    const res = await createPost({ company: ACME.id, experience: NEWS, title: 'Launch' }, [
      { content: '<p>We <strong>launched</strong></p>', image: [{ id: png.id, path: png.path }] },
      { content: '<p>Questions welcome</p>', image: [] },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId, () => sim.posts.length === 2);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    const [root, comment] = sim.posts;
    expect(root).toMatchObject({ experienceId: NEWS, userId: USER.id, title: 'Launch', content: 'We **launched**', parentId: null, mediaSha256: [sha(bytes)] });
    expect(comment).toMatchObject({ experienceId: NEWS, parentId: root!.id, content: 'Questions welcome', mediaSha256: [] });
    expect(post.releaseId).toBe(root!.id);
    expect(post.releaseURL).toBe(`https://whop.com/experiences/${NEWS}/${root!.id}`);
    // The file was looked at until ready, and the token was refreshed once (JSON, with the rotating refresh token).
    expect(sim.log.filter((r) => r.method === 'GET' && r.path.startsWith('/api/v1/files/')).length).toBeGreaterThanOrEqual(2);
    expect(sim.log.filter((r) => r.path === '/oauth/token' && (r.body as { grant_type?: string }).grant_type === 'refresh_token')).toHaveLength(1);
  });
});
