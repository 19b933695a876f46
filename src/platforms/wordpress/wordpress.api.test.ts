import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
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
import type { WordpressSimulator } from './wordpress.simulator.js';
import { APP_PASSWORD, credentialsInput, NEWS, platformOriginsFor, RELEASES, SITE, TAG_RUST, wordpressSimulator } from './wordpress.testkit.js';

/**
 * WordPress end to end through the HTTP API of a real app with its worker: the credentials form
 * verified against the simulated site (a wrong application password or user answers 400 naming
 * the field and stores nothing), the categories/tags/post types tools, then a post with a featured
 * image and a picture in the text, published by the worker. The simulator's records are the
 * verdict: the post with its categories and tags, the media library holding the uploaded bytes.
 */

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: WordpressSimulator;
let dataDir: string;
let channelId: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-wordpress-'));
  sim = await wordpressSimulator();
  clock = realtimeManualClock();
  t = await buildTestApp({ clock, startWorker: true, env: { DATA_DIR: dataDir, PLATFORM_ORIGINS: platformOriginsFor(sim) } });
  org = await t.createOrg('Acme');
});

afterAll(async () => {
  await t?.close();
  await sim?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function picture(seed: number, format: 'png' | 'jpeg'): Promise<Buffer> {
  const [w, h] = [40, 30];
  const raw = Buffer.alloc(w * h * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 5 + seed * 17) & 255;
  const img = sharp(raw, { raw: { width: w, height: h, channels: 3 } });
  return format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 90 }).toBuffer();
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
    30_000,
    `post ${id} to be published (last seen ${JSON.stringify(last)})`,
  );
}

describe('wordpress through the API', () => {
  it('a wrong application password or user answers 400 naming the field, and stores nothing', async () => {
    const wrong = expectError(
      await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/wordpress', payload: credentialsInput({ applicationPassword: 'abcd EFGH 1234 ijkl MNOP 0000' }) }),
      400,
      'VALIDATION_FAILED',
    );
    expect(wrong.fields).toEqual([{ path: 'applicationPassword', message: 'WordPress refused the application password: The provided password is an invalid application password.' }]);
    const nobody = expectError(await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/wordpress', payload: credentialsInput({ username: 'nobody' }) }), 400, 'VALIDATION_FAILED');
    expect(nobody.fields![0]!.path).toBe('username');
    const missing = expectError(await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/wordpress', payload: { siteUrl: SITE, username: 'editor' } }), 400, 'VALIDATION_FAILED');
    expect(missing.fields![0]!.path).toBe('applicationPassword');
    expect(await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id))).toHaveLength(0);
  });

  it('connects with the site address, the user and the application password', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/wordpress', payload: credentialsInput() });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'wordpress', name: 'Eddie Editor', profile: 'editor' });
    channelId = res.json<{ id: string }>().id;
    const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.id, channelId));
    expect(row!.internalId).toBe('blog.example.com#7');
    expect(row!.credentials).not.toContain(APP_PASSWORD);
    expect(JSON.parse(t.deps.secretBox.open(row!.credentials!))).toMatchObject({ restRoot: `${SITE}/wp-json/`, username: 'editor', applicationPassword: APP_PASSWORD, userId: 7 });
  });

  it('the tools list the categories, tags and post types', async () => {
    const tool = async (methodName: string) => {
      const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName, data: {} } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ output: unknown }>().output;
    };
    expect(await tool('categoriesList')).toEqual([
      { id: NEWS, name: 'News & Events', parent: 0 },
      { id: RELEASES, name: 'Releases', parent: NEWS },
      { id: 1, name: 'Uncategorized', parent: 0 },
    ]);
    expect(await tool('categories')).toEqual(await tool('categoriesList'));
    expect(await tool('tagsList')).toEqual([{ id: TAG_RUST, name: 'rust' }]);
    expect(await tool('postTypes')).toEqual([{ id: 'posts', name: 'Posts' }, { id: 'pages', name: 'Pages' }]);
  });

  it('refuses a post without a title or type, naming the field, before anything is sent', async () => {
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: { type: 'now', shortLink: false, tags: [], posts: [{ integration: { id: channelId }, settings: { __type: 'wordpress', title: 'x' }, value: [{ content: 'hi', image: [] }] }] },
    });
    const paths = [...new Set(expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path))].sort();
    expect(paths).toEqual(['posts.0.settings.title', 'posts.0.settings.type']);
    expect(sim.posts).toHaveLength(0);
  });

  it('publishes a post with a featured image, a picture, categories and tags, byte for byte', async () => {
    const coverBytes = await picture(1, 'png');
    const inlineBytes = await picture(2, 'jpeg');
    const cover = await uploadMedia(t, org, coverBytes, 'cover.png');
    const inline = await uploadMedia(t, org, inlineBytes, 'inline.jpg');
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
            settings: { __type: 'wordpress', title: 'Release 2.0', type: 'posts', status: 'publish', categories: [NEWS, RELEASES], tags: [TAG_RUST], main_image: { id: cover.id, path: cover.path } },
            value: [{ content: '<p>Version <strong>2.0</strong> is out</p>', image: [{ id: inline.id, path: inline.path }] }],
          },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    expect(sim.posts).toHaveLength(1);
    const wp = sim.posts[0]!;
    expect(post.releaseId).toBe(String(wp.id));
    expect(post.releaseURL).toBe(`${SITE}/release-2-0/`);
    expect(wp).toMatchObject({ title: 'Release 2.0', status: 'publish', categories: [NEWS, RELEASES], tags: [TAG_RUST], author: 7 });
    expect(wp.content).toContain('<p>Version <strong>2.0</strong> is out</p>');
    expect(sim.mediaOf(wp)).toEqual({ featured: sha(coverBytes), inContent: [sha(inlineBytes)] });
    expect(sim.media.map((m) => m.mimeType)).toEqual(['image/png', 'image/jpeg']);
  });
});
