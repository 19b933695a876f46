import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.js';
import type { ManualClock } from '../../lib/clock.js';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';
import type { LemmySimulator } from './lemmy.simulator.js';
import { ALICE, community, INSTANCE, lemmySimulator, OPENSOURCE, platformOriginsFor, SELFHOSTED } from './lemmy.testkit.js';

/**
 * Lemmy end to end through the HTTP API of a real app with its worker: the credentials form
 * verified against the simulated instance (a wrong password answers 400 naming `password`, an
 * address that is no Lemmy names `instanceUrl`, and nothing is stored), the community search
 * tool, validation of titles, then a post with a picture and two thread items published by the
 * worker into two communities — the picture uploaded to the instance's pict-rs, the items nested
 * as comments — post figures, and a session that ended being renewed on the way with the sealed
 * password. The simulator's records are the verdict.
 */

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NOT_LEMMY = 'https://not-lemmy.example';

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: LemmySimulator;
let notLemmy: Server;
let dataDir: string;
let channelId: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-lemmy-'));
  sim = await lemmySimulator();
  notLemmy = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Welcome to nginx</h1>'));
  await new Promise<void>((r) => notLemmy.listen(0, '127.0.0.1', r));
  const notLemmyOrigin = `http://127.0.0.1:${(notLemmy.address() as AddressInfo).port}`;
  clock = realtimeManualClock();
  t = await buildTestApp({ clock, startWorker: true, env: { DATA_DIR: dataDir, PLATFORM_ORIGINS: `${platformOriginsFor(sim)},${NOT_LEMMY}=${notLemmyOrigin}` } });
  org = await t.createOrg('Acme');
});

afterAll(async () => {
  await t?.close();
  await sim?.close();
  await new Promise((r) => notLemmy?.close(r));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function picture(seed: number): Promise<Buffer> {
  const [w, h] = [40, 30];
  const raw = Buffer.alloc(w * h * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 3 + seed * 29) & 255;
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } }).png().toBuffer();
}

interface PostView {
  id: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
}

const connectInput = (extra: Record<string, unknown> = {}) => ({ instanceUrl: INSTANCE, username: ALICE.name, password: ALICE.password, ...extra });

function createPost(settings: Record<string, unknown>, value: { content: string; image: { id: string; path: string; alt?: string }[] }[]) {
  return call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'lemmy', ...settings }, value }] },
  });
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
    30_000,
    `post ${id} to be published (last seen ${JSON.stringify(last)})`,
  );
}

describe('lemmy through the API', () => {
  it('a wrong password names password, an address that is no Lemmy names instanceUrl; nothing is stored', async () => {
    const wrong = expectError(await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/lemmy', payload: connectInput({ password: 'not it' }) }), 400, 'VALIDATION_FAILED');
    expect(wrong.fields).toEqual([{ path: 'password', message: 'Lemmy refused the login: wrong username or password' }]);
    const elsewhere = expectError(await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/lemmy', payload: connectInput({ instanceUrl: NOT_LEMMY }) }), 400, 'VALIDATION_FAILED');
    expect(elsewhere.fields![0]!.path).toBe('instanceUrl');
    expect(elsewhere.fields![0]!.message).toMatch(/does not answer like a Lemmy instance/);
    const missing = expectError(await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/lemmy', payload: { instanceUrl: INSTANCE, username: 'alice' } }), 400, 'VALIDATION_FAILED');
    expect(missing.fields![0]!.path).toBe('password');
    expect(await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id))).toHaveLength(0);
  });

  it('connects with the instance, the username and the password', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/lemmy', payload: connectInput() });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'lemmy', name: 'Alice Tidings', profile: 'alice@lemmy.example' });
    channelId = res.json<{ id: string }>().id;
    const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.id, channelId));
    expect(row!.internalId).toBe(`${INSTANCE}/u/alice`);
    expect(row!.credentials).not.toContain(ALICE.password);
    expect(JSON.parse(t.deps.secretBox.open(row!.credentials!))).toMatchObject({ instanceUrl: INSTANCE, username: 'alice', password: ALICE.password, personId: ALICE.id });
  });

  it('the subreddits tool searches the instance’s communities', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'subreddits', data: { word: 'self' } } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ output: [{ id: String(SELFHOSTED.id), name: 'selfhosted@lemmy.example', title: 'Self-hosted', subreddit: 'selfhosted', nsfw: false, subscribers: 5000 }] });
  });

  it('refuses titles Lemmy would refuse and a missing community, naming the field, before anything is sent', async () => {
    const paths = async (settings: Record<string, unknown>) => [...new Set(expectError(await createPost(settings, [{ content: 'hi', image: [] }]), 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))];
    expect(await paths({ subreddit: [community(SELFHOSTED, 'x')] })).toEqual(['posts.0.settings.subreddit.0.value.title']);
    expect(await paths({ subreddit: [community(SELFHOSTED), community(OPENSOURCE, 'two\nlines')] })).toEqual(['posts.0.settings.subreddit.1.value.title']);
    expect(await paths({ subreddit: [] })).toEqual(['posts.0.settings.subreddit']);
    expect(sim.posts).toHaveLength(0);
  });

  it('publishes into two communities with a picture from pict-rs, thread items nested as comments', async () => {
    const bytes = await picture(1);
    const png = await uploadMedia(t, org, bytes, 'release.png');
    const res = await createPost({ subreddit: [community(SELFHOSTED, 'Tidings 1.0 is out'), community(OPENSOURCE, 'Tidings 1.0, a scheduler', 'https://tidings.example/1.0')] }, [
      { content: '<p>Version <strong>1.0</strong> is out</p>', image: [{ id: png.id, path: png.path, alt: 'The release banner' }] },
      { content: '<p>What changed</p>', image: [] },
      { content: '<p>Everything</p>', image: [] },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    const [a, b] = sim.posts;
    expect(post.releaseId).toBe(`${a!.id},${b!.id}`);
    expect(post.releaseURL).toBe(`${INSTANCE}/post/${a!.id}`);
    expect([...sim.images.values()].map((i) => i.sha256)).toEqual([sha(bytes)]);
    const pictureUrl = `${INSTANCE}/pictrs/image/${[...sim.images.keys()][0]!}`;
    expect(a).toMatchObject({ communityId: SELFHOSTED.id, name: 'Tidings 1.0 is out', url: pictureUrl, altText: 'The release banner', body: 'Version **1.0** is out', creatorId: ALICE.id });
    expect(b).toMatchObject({ communityId: OPENSOURCE.id, url: 'https://tidings.example/1.0', body: `![The release banner](${pictureUrl})\n\nVersion **1.0** is out` });
    expect(sim.imagesIn(a!.url)).toEqual([sha(bytes)]);
    expect(sim.imagesIn(b!.body)).toEqual([sha(bytes)]);

    const comments = await waitFor(
      async () => {
        await releaseDueJobs(t, clock);
        return sim.comments.length === 4 ? sim.comments : undefined;
      },
      30_000,
      'the four comments',
    );
    const [c1, c2, c3, c4] = comments;
    expect(comments.map((c) => [c.postId, c.parentId, c.content])).toEqual([
      [a!.id, null, 'What changed'],
      [b!.id, null, 'What changed'],
      [a!.id, c1!.id, 'Everything'],
      [b!.id, c2!.id, 'Everything'],
    ]);
    expect([c3!.path, c4!.path]).toEqual([`0.${c1!.id}.${c3!.id}`, `0.${c2!.id}.${c4!.id}`]);
  });

  it('post figures: score and comments of the post, over its communities', async () => {
    const res = await createPost({ subreddit: [community(SELFHOSTED, 'Counted post')] }, [{ content: 'count me', image: [] }]);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    sim.setCounts(Number(post.releaseId), { score: 42, upvotes: 45, downvotes: 3, comments: 7 });
    const stats = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/analytics/post/${post.id}?date=7` });
    expect(stats.statusCode, stats.body).toBe(200);
    expect(stats.json<{ label: string; data: { total: number | string }[] }[]>().map((s) => [s.label, Number(s.data.at(-1)!.total)])).toEqual([
      ['Score', 42],
      ['Upvotes', 45],
      ['Downvotes', 3],
      ['Comments', 7],
    ]);
  });

  it('a session that ended is renewed with the sealed password on the way, and the post goes out once', async () => {
    const open = async () => {
      const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.id, channelId));
      return JSON.parse(t.deps.secretBox.open(row!.credentials!)) as { jwt: string };
    };
    const before = await open();
    const logins = sim.logins();
    const posts = sim.posts.length;
    sim.expireAccessTokens();
    const res = await createPost({ subreddit: [community(OPENSOURCE, 'After the logout')] }, [{ content: 'still here', image: [] }]);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    expect(sim.logins()).toBe(logins + 1);
    expect(sim.posts.length).toBe(posts + 1);
    expect(sim.posts.at(-1)).toMatchObject({ name: 'After the logout', body: 'still here' });
    expect((await open()).jwt).not.toBe(before.jwt);
  });
});
