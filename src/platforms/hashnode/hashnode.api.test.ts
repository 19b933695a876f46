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
import type { HashnodeSimulator } from './hashnode.simulator.js';
import { BLOG, HN_TOKEN, HN_USER, hashnodeSimulator, JS_TAG, NEWS, PG_TAG, platformOriginsFor } from './hashnode.testkit.js';

/**
 * Hashnode end to end through the HTTP API of a real app with its worker: the credentials form
 * (`POST /social/hashnode`, verified with the `me` query; a wrong token is a 400 naming `token`
 * with nothing stored), the tools, then a post made through `POST /posts` into the chosen
 * publication, whose cover is an upload the simulator pulls from the app's own public `/media/…`
 * URL (the app listens on loopback, mapped from PUBLIC_URL), and the post's figures as post
 * analytics. The simulator's records are the verdict: one post, with the cover's bytes (sha256).
 */

const PUBLIC_URL = 'https://tidings.example';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: HashnodeSimulator;
let dataDir: string;
let channelId: string;
const mediaOrigins: Record<string, string> = {};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-hashnode-'));
  sim = await hashnodeSimulator({ mediaOrigins });
  clock = realtimeManualClock();
  t = await buildTestApp({ clock, startWorker: true, env: { DATA_DIR: dataDir, PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim) } });
  // Hashnode pulls the cover from PUBLIC_URL: the app really listens, and the simulator maps PUBLIC_URL to it.
  mediaOrigins[PUBLIC_URL] = await t.app.listen({ port: 0, host: '127.0.0.1' });
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
    `post ${id} to be published (last seen ${JSON.stringify(last)})`,
  );
}

const createPost = (settings: Record<string, unknown>, content: string) =>
  call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'hashnode', ...settings }, value: [{ content, image: [] }] }] },
  });

describe('hashnode through the API', () => {
  it('a wrong token answers 400 naming token and stores no channel', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/hashnode', payload: { token: 'wrong-token' } });
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['token']);
    expect(await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id))).toHaveLength(0);
  });

  it('connects with the personal access token, verified with the me query, stored sealed', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/hashnode', payload: { token: HN_TOKEN } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'hashnode', name: HN_USER.name, profile: HN_USER.username });
    expect(res.body).not.toContain(HN_TOKEN);
    channelId = res.json<{ id: string }>().id;
    const [row] = await t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, org.id)));
    expect(row!.internalId).toBe(HN_USER.id);
    expect(row!.credentials).not.toContain(HN_TOKEN);
    expect(JSON.parse(t.deps.secretBox.open(row!.credentials!))).toEqual({ token: HN_TOKEN });
  });

  it('the tools list the account’s publications and the tags used on them', async () => {
    sim.addPost({ authorId: HN_USER.id, publicationId: NEWS.id, title: 'An earlier post', tagIds: [JS_TAG.id], publishedAt: '2025-01-01T00:00:00.000Z' });
    const trigger = (methodName: string) => call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName, data: {} } });
    const pubs = await trigger('publications');
    expect(pubs.statusCode, pubs.body).toBe(200);
    expect(pubs.json()).toEqual({ output: [{ id: BLOG.id, name: BLOG.title, url: BLOG.url }, { id: NEWS.id, name: NEWS.title, url: NEWS.url }] });
    expect((await trigger('tagsList')).json()).toEqual({ output: [{ value: 'javascript', label: 'JavaScript' }] });
  });

  it('refuses a post without a publication or tags, naming the fields, before anything is sent', async () => {
    const res = await createPost({ title: 'Missing things' }, '<p>x</p>');
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path).sort()).toEqual(['posts.0.settings.publication', 'posts.0.settings.tags']);
    expect(sim.operations.filter((o) => o.type === 'mutation')).toHaveLength(0);
  });

  it('publishes into the chosen publication with its cover pulled from the app’s public media URL, byte for byte, then reads its figures', async () => {
    const raw = Buffer.alloc(48 * 32 * 3);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * 17) & 255;
    const coverBytes = await sharp(raw, { raw: { width: 48, height: 32, channels: 3 } }).png().toBuffer();
    const cover = await uploadMedia(t, org, coverBytes, 'cover.png');
    expect(cover.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
    const before = sim.posts.length;
    const res = await createPost(
      {
        title: 'Queues on PostgreSQL',
        subtitle: 'pg-boss in practice',
        main_image: { id: cover.id, path: cover.path },
        canonical: 'https://blog.example.com/queues',
        publication: BLOG.id,
        tags: [{ value: 'postgresql', label: 'PostgreSQL' }, { value: JS_TAG.id, label: 'JavaScript' }],
      },
      '<p>Queues <strong>and</strong> clocks.</p>',
    );
    expect(res.statusCode, res.body).toBe(201);
    const postId = res.json<{ postId: string }[]>()[0]!.postId;
    const post = await settle(postId);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    expect(sim.posts.length - before).toBe(1);
    const made = sim.posts.find((p) => p.id === post.releaseId)!;
    expect(post.releaseURL).toBe('https://acme.hashnode.dev/queues-on-postgresql');
    expect(made).toMatchObject({
      publicationId: BLOG.id,
      title: 'Queues on PostgreSQL',
      subtitle: 'pg-boss in practice',
      markdown: 'Queues **and** clocks.',
      tagIds: [PG_TAG.id, JS_TAG.id],
      canonicalUrl: 'https://blog.example.com/queues',
    });
    expect(made.cover).toEqual({ url: cover.path, sha256: sha(coverBytes), size: coverBytes.length, contentType: 'image/png' });

    sim.setFigures(made.id, { views: 88, reactionCount: 6, responseCount: 1 });
    const stats = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/analytics/post/${postId}?date=7` });
    expect(stats.statusCode, stats.body).toBe(200);
    const series = stats.json<{ label: string; data: { total: number | string }[] }[]>();
    expect(series.map((s) => [s.label, Number(s.data.at(-1)!.total)])).toEqual([
      ['Views', 88],
      ['Reactions', 6],
      ['Responses', 1],
    ]);
  });
});
