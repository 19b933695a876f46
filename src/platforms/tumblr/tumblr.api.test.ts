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
import type { TumblrSimulator } from './tumblr.simulator.js';
import { MAIN_BLOG, OTHER_BLOG, platformOriginsFor, SIDE_BLOG, TUMBLR_APP, tumblrSimulator } from './tumblr.testkit.js';

/**
 * Tumblr end to end through the HTTP API of a real app with its worker: connecting through
 * `GET /social/tumblr` → the simulator's authorisation page → the callback (the primary blog),
 * the `blogs` tool and `PUT /integrations/{id}/account`, validation naming fields, a post with a
 * picture and a video uploaded through `POST /upload` and published by the worker as NPF in one
 * multipart request, its note count as post analytics, and a transparent token refresh. The
 * simulator's records are the verdict: the post's blocks and the uploaded bytes (sha256).
 */

const PUBLIC_URL = 'https://tidings.example';
const VIDEO_FIXTURE = join(import.meta.dirname, '../../../test/fixtures/media/h264-aac-faststart.mp4');
const PNG_FIXTURE = join(import.meta.dirname, '../../../test/fixtures/media/photo-48x64.png');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: TumblrSimulator;
let dataDir: string;
let channelId: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-tumblr-'));
  sim = await tumblrSimulator();
  sim.apps.get(TUMBLR_APP.clientId)!.redirectUris = [`${PUBLIC_URL}/integrations/social/tumblr/callback`];
  clock = realtimeManualClock();
  t = await buildTestApp({
    clock,
    startWorker: true,
    env: {
      DATA_DIR: dataDir,
      PUBLIC_URL,
      PLATFORM_ORIGINS: platformOriginsFor(sim),
      TUMBLR_CLIENT_ID: TUMBLR_APP.clientId,
      TUMBLR_CLIENT_SECRET: TUMBLR_APP.clientSecret,
    },
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

const postBody = (settings: Record<string, unknown>, content: string, image: { id: string; path: string; alt?: string }[]) => ({
  type: 'now',
  shortLink: false,
  tags: [],
  posts: [{ integration: { id: channelId }, settings: { __type: 'tumblr', ...settings }, value: [{ content, image }] }],
});

const createPost = (settings: Record<string, unknown>, content: string, image: { id: string; path: string; alt?: string }[] = []) =>
  call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/posts', payload: postBody(settings, content, image) });

async function getPost(id: string): Promise<PostView> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PostView>();
}

/** Waits until the post is PUBLISHED or ERROR, bringing each next attempt forward on the app's clock. */
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

async function publish(settings: Record<string, unknown>, content: string, image: { id: string; path: string; alt?: string }[] = []) {
  const res = await createPost(settings, content, image);
  expect(res.statusCode, res.body).toBe(201);
  const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
  expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
  const record = sim.posts.find((p) => p.id === post.releaseId);
  expect(record, `post ${post.releaseId}`).toBeDefined();
  return { post, record: record! };
}

describe('tumblr through the API', () => {
  it('connects through the authorisation page and the callback, on the primary blog', async () => {
    const begun = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/tumblr' });
    expect(begun.statusCode, begun.body).toBe(200);
    const url = new URL(begun.json<{ url: string }>().url);
    expect(url.origin).toBe(sim.origin);
    expect(url.pathname).toBe('/oauth2/authorize');
    expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/integrations/social/tumblr/callback`);
    expect(url.searchParams.get('scope')).toBe('basic write offline_access');
    const approved = await fetch(url, { redirect: 'manual' });
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    const page = await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(page.statusCode, page.body).toBe(200);

    const listed = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
    const channel = listed.json<{ id: string; identifier: string; name: string; profile: string }[]>().find((i) => i.identifier === 'tumblr')!;
    expect(channel).toMatchObject({ name: MAIN_BLOG.title, profile: MAIN_BLOG.name });
    channelId = channel.id;
    const [row] = await t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, org.id)));
    expect(row!.internalId).toBe(MAIN_BLOG.uuid);
  });

  it('the blogs tool lists the account’s blogs; the channel switches blog and back; a blog of someone else is refused', async () => {
    const tool = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'blogs', data: {} } });
    expect(tool.statusCode, tool.body).toBe(200);
    expect(tool.json<{ output: { id: string; current: boolean }[] }>().output.map((b) => [b.id, b.current])).toEqual([
      [SIDE_BLOG.uuid, false],
      [MAIN_BLOG.uuid, true],
    ]);
    const switched = await call(t.app, org.apiKey, { method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: SIDE_BLOG.uuid } });
    expect(switched.statusCode, switched.body).toBe(200);
    expect(switched.json()).toMatchObject({ id: channelId, name: SIDE_BLOG.title, profile: SIDE_BLOG.name });
    const { record } = await publish({}, '<p>A quick <em>sketch</em></p>');
    expect(record.blogUuid).toBe(SIDE_BLOG.uuid);
    const refused = await call(t.app, org.apiKey, { method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: OTHER_BLOG.uuid } });
    expect(refused.statusCode).toBe(400);
    const back = await call(t.app, org.apiKey, { method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: MAIN_BLOG.uuid } });
    expect(back.json()).toMatchObject({ name: MAIN_BLOG.title });
  });

  it('refuses bad settings and an empty post, naming the field', async () => {
    const before = sim.posts.length;
    const paths = async (res: Awaited<ReturnType<typeof createPost>>) => [...new Set(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))];
    expect(await paths(await createPost({ state: 'publish' }, '<p>x</p>'))).toEqual(['posts.0.settings.state']);
    expect(await paths(await createPost({ tags: Array.from({ length: 31 }, (_, i) => `t${i}`).join(',') }, '<p>x</p>'))).toEqual(['posts.0.settings.tags']);
    expect(await paths(await createPost({ sourceUrl: 'not a url' }, '<p>x</p>'))).toEqual(['posts.0.settings.sourceUrl']);
    expect(sim.posts.length).toBe(before);
  });

  it('publishes text, a picture and a video as NPF in one multipart request, byte for byte, with the settings', async () => {
    const pngBytes = await readFile(PNG_FIXTURE);
    const videoBytes = await readFile(VIDEO_FIXTURE);
    const png = await uploadMedia(t, org, pngBytes, 'photo.png');
    const clip = await uploadMedia(t, org, videoBytes, 'clip.mp4');
    const { post, record } = await publish(
      { title: 'New work', tags: '#ink, paper', sourceUrl: 'https://acme.example/source', link: 'https://acme.example/shop' },
      '<p>Fresh from the <strong>studio</strong></p><blockquote><p>quoted</p></blockquote>',
      [{ id: png.id, path: png.path, alt: 'A sketch' }, { id: clip.id, path: clip.path }],
    );
    expect(post.releaseURL).toBe(`https://${MAIN_BLOG.name}.tumblr.com/post/${post.releaseId}`);
    expect(record).toMatchObject({ blogUuid: MAIN_BLOG.uuid, state: 'published', tags: ['ink', 'paper'], sourceUrl: 'https://acme.example/source' });
    expect(record.content).toEqual([
      { type: 'text', subtype: 'heading1', text: 'New work' },
      { type: 'text', text: 'Fresh from the studio', formatting: [{ start: 15, end: 21, type: 'bold' }] },
      { type: 'text', subtype: 'indented', text: 'quoted' },
      { type: 'link', url: 'https://acme.example/shop' },
      { type: 'image', media: [{ type: 'image/png', identifier: 'media-0', width: 48, height: 64 }], alt_text: 'A sketch' },
      { type: 'video', provider: 'tumblr', media: expect.objectContaining({ type: 'video/mp4', identifier: 'media-1' }) },
    ]);
    expect(record.files.map((f) => f.sha256)).toEqual([sha(pngBytes), sha(videoBytes)]);
  });

  it('a queued post goes to the blog’s queue', async () => {
    const { record } = await publish({ state: 'queue' }, '<p>Later</p>');
    expect(record.state).toBe('queue');
  });

  it('post analytics are the post’s note count', async () => {
    const { post } = await publish({}, '<p>counted</p>');
    sim.setNoteCount(post.releaseId!, 17);
    const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/analytics/post/${post.id}?date=7` });
    expect(res.statusCode, res.body).toBe(200);
    const series = res.json<{ label: string; data: { total: number | string }[] }[]>();
    expect(series.map((s) => s.label)).toEqual(['Notes']);
    expect(Number(series[0]!.data.at(-1)!.total)).toBe(17);
  });

  it('an expired access token is refreshed on the way, and the rotated refresh token is stored', async () => {
    const open = async () => {
      const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.id, channelId));
      return JSON.parse(t.deps.secretBox.open(row!.credentials!)) as { accessToken: string; refreshToken: string };
    };
    const before = await open();
    const refreshes = sim.refreshCount();
    sim.expireAccessTokens();
    const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'blogs', data: {} } });
    expect(res.statusCode, res.body).toBe(200);
    expect(sim.refreshCount()).toBe(refreshes + 1);
    const after = await open();
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
  });
});
