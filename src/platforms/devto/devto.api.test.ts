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
import type { DevtoSimulator } from './devto.simulator.js';
import { DEV_KEY, DEV_ORG, DEV_USER, devtoSimulator, platformOriginsFor } from './devto.testkit.js';

/**
 * DEV end to end through the HTTP API of a real app with its worker: the credentials form
 * (`POST /social/devto`, verified against the simulator; a wrong key is a 400 naming `apiKey`
 * with nothing stored), the tools, then an article made through `POST /posts` whose cover is an
 * upload the simulator pulls from the app's own public `/media/…` URL (the app listens on
 * loopback, mapped from PUBLIC_URL), and the article's figures as post analytics. The
 * simulator's records are the verdict: one article, with the cover's bytes (sha256).
 */

const PUBLIC_URL = 'https://tidings.example';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: DevtoSimulator;
let dataDir: string;
let channelId: string;
const mediaOrigins: Record<string, string> = {};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-devto-'));
  sim = await devtoSimulator({ mediaOrigins });
  clock = realtimeManualClock();
  t = await buildTestApp({ clock, startWorker: true, env: { DATA_DIR: dataDir, PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim) } });
  // DEV pulls the cover from PUBLIC_URL: the app really listens, and the simulator maps PUBLIC_URL to it.
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
    payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'devto', ...settings }, value: [{ content, image: [] }] }] },
  });

describe('devto through the API', () => {
  it('a wrong API key answers 400 naming apiKey and stores no channel', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/devto', payload: { apiKey: 'wrong-key' } });
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['apiKey']);
    expect(await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id))).toHaveLength(0);
  });

  it('connects with the API key, verified against DEV, stored sealed', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/devto', payload: { apiKey: DEV_KEY } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'devto', name: DEV_USER.name, profile: DEV_USER.username });
    expect(res.body).not.toContain(DEV_KEY);
    channelId = res.json<{ id: string }>().id;
    const [row] = await t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, org.id)));
    expect(row!.internalId).toBe(String(DEV_USER.id));
    expect(row!.credentials).not.toContain(DEV_KEY);
    expect(JSON.parse(t.deps.secretBox.open(row!.credentials!))).toEqual({ apiKey: DEV_KEY });
  });

  it('the tools list DEV’s tags and the account’s organizations', async () => {
    sim.addArticle({ userId: DEV_USER.id, title: 'Earlier, under the org', organizationId: DEV_ORG.id, publishedAt: '2025-01-01T00:00:00.000Z' });
    const trigger = (methodName: string) => call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName, data: {} } });
    const orgs = await trigger('organizations');
    expect(orgs.statusCode, orgs.body).toBe(200);
    expect(orgs.json()).toEqual({ output: [{ id: String(DEV_ORG.id), name: DEV_ORG.name, username: DEV_ORG.username }] });
    const tags = await trigger('tags');
    expect(tags.json<{ output: { value: number; label: string }[] }>().output).toContainEqual({ value: 555, label: 'node' });
  });

  it('refuses a tag DEV would refuse, naming the field, before anything is sent', async () => {
    const res = await createPost({ title: 'Bad tag', tags: [{ value: 1, label: 'web-dev' }] }, '<p>x</p>');
    expect(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path)).toEqual(['posts.0.settings.tags.0']);
  });

  it('publishes an article with its cover pulled from the app’s public media URL, byte for byte, then reads its figures', async () => {
    const raw = Buffer.alloc(48 * 32 * 3);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * 13) & 255;
    const coverBytes = await sharp(raw, { raw: { width: 48, height: 32, channels: 3 } }).png().toBuffer();
    const cover = await uploadMedia(t, org, coverBytes, 'cover.png');
    expect(cover.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
    const before = sim.articles.length;
    const res = await createPost(
      {
        title: 'Scheduling posts with Node',
        main_image: { id: cover.id, path: cover.path },
        canonical: 'https://blog.example.com/scheduling',
        series: 'Tidings',
        organization: String(DEV_ORG.id),
        tags: [{ value: 555, label: 'node' }, { value: 1234, label: 'typescript' }],
      },
      '<p>Queues <strong>and</strong> clocks.</p>',
    );
    expect(res.statusCode, res.body).toBe(201);
    const postId = res.json<{ postId: string }[]>()[0]!.postId;
    const post = await settle(postId);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    expect(sim.articles.length - before).toBe(1);
    const article = sim.articles.find((a) => String(a.id) === post.releaseId)!;
    expect(post.releaseURL).toBe(article.url);
    expect(article).toMatchObject({
      title: 'Scheduling posts with Node',
      bodyMarkdown: 'Queues **and** clocks.',
      tags: ['node', 'typescript'],
      canonicalUrl: 'https://blog.example.com/scheduling',
      series: 'Tidings',
      organizationId: DEV_ORG.id,
    });
    expect(article.cover).toEqual({ url: cover.path, sha256: sha(coverBytes), size: coverBytes.length, contentType: 'image/png' });

    sim.setFigures(article.id, { pageViews: 140, reactions: 9, comments: 2 });
    const stats = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/analytics/post/${postId}?date=7` });
    expect(stats.statusCode, stats.body).toBe(200);
    const series = stats.json<{ label: string; data: { total: number | string }[] }[]>();
    expect(series.map((s) => [s.label, Number(s.data.at(-1)!.total)])).toEqual([
      ['Views', 140],
      ['Reactions', 9],
      ['Comments', 2],
    ]);
  });
});
