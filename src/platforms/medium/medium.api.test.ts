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
import type { MediumSimulator } from './medium.simulator.js';
import { ABOUT, DEVELOPERS, MEDIUM_TOKEN, mediumSimulator, platformOriginsFor, WRITER } from './medium.testkit.js';

/**
 * Medium end to end through the HTTP API of a real app with its worker: the connect form
 * (`GET /social/medium`), a wrong token refused on its field with nothing stored, the right one
 * verified and saved, the publications tool, and a story with a picture published by the worker —
 * Medium fetches the picture from the app's own `/media/…` URL (the app listens on loopback,
 * mapped from PUBLIC_URL), and the simulator's record holds the sha256 of the bytes it got.
 */

const PUBLIC_URL = 'https://tidings.example';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let sim: MediumSimulator;
let dataDir: string;
let channelId: string;
const mediaOrigins: Record<string, string> = {};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tidings-medium-'));
  sim = await mediumSimulator({ mediaOrigins });
  clock = realtimeManualClock();
  t = await buildTestApp({ clock, startWorker: true, env: { DATA_DIR: dataDir, PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim) } });
  // Medium fetches pictures from PUBLIC_URL: the app really listens, and the simulator maps PUBLIC_URL to it.
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

describe('medium through the API', () => {
  it('GET /social/medium shows the connect form, which says Medium issues no new tokens', async () => {
    const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/social/medium' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ url: null; credentials: { required: string[]; properties: { token: { description: string } } } }>();
    expect(body.url).toBeNull();
    expect(body.credentials.required).toEqual(['token']);
    expect(body.credentials.properties.token.description).toMatch(/stopped issuing new integration tokens on 1 January 2025/);
  });

  it('a wrong token answers 400 naming the token, and stores no channel', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/medium', payload: { token: '0123456789abcdef' } });
    const err = expectError(res, 400, 'VALIDATION_FAILED');
    expect(err.fields).toEqual([{ path: 'token', message: 'Medium refused the integration token: Token was invalid.' }]);
    expect(await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id))).toHaveLength(0);
  });

  it('the integration token is verified with Medium and the channel saved', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/medium', payload: { token: MEDIUM_TOKEN } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'medium', name: 'Acme Writes', profile: 'acmewrites', picture: WRITER.imageUrl });
    expect(res.body).not.toContain(MEDIUM_TOKEN);
    channelId = res.json<{ id: string }>().id;
    const [row] = await t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, org.id)));
    expect(row!.internalId).toBe(WRITER.id);
  });

  it('the publications tool lists the account’s publications', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'publications', data: {} } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ output: { id: string; name: string }[] }>().output.map((p) => [p.id, p.name])).toEqual([
      [DEVELOPERS, 'Developers'],
      [ABOUT, 'About Medium'],
    ]);
  });

  it('refuses a story without a title and one with four tags, naming the fields', async () => {
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: {
        type: 'now',
        shortLink: false,
        tags: [],
        posts: [{ integration: { id: channelId }, settings: { __type: 'medium', subtitle: 'Sub', tags: ['a', 'b', 'c', 'd'].map((v) => ({ value: v, label: v })) }, value: [{ content: '<p>x</p>', image: [] }] }],
      },
    });
    const paths = expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['posts.0.settings.title', 'posts.0.settings.tags']));
    expect(sim.posts).toHaveLength(0);
  });

  it('publishes a story with a picture: Medium pulls the bytes from the public media URL', async () => {
    const raw = Buffer.alloc(32 * 24 * 3);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * 13) & 255;
    const png = await sharp(raw, { raw: { width: 32, height: 24, channels: 3 } }).png().toBuffer();
    const media = await uploadMedia(t, org, png, 'rack.png');
    expect(media.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
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
            settings: {
              __type: 'medium',
              title: 'Why we self-host',
              subtitle: 'Owning the scheduler',
              canonical: 'https://blog.example.com/self-host',
              tags: [{ value: 'self-hosting', label: 'Self Hosting' }],
            },
            value: [{ content: '<p>Our <strong>own</strong> servers.</p>', image: [{ id: media.id, path: media.path, alt: 'A rack' }] }],
          },
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const post = await settle(res.json<{ postId: string }[]>()[0]!.postId);
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
    const story = sim.posts.find((p) => p.id === post.releaseId)!;
    expect(post.releaseURL).toBe(`https://medium.com/@acmewrites/why-we-self-host-${story.id}`);
    expect(story).toMatchObject({ authorId: WRITER.id, title: 'Why we self-host', contentFormat: 'markdown', tags: ['self-hosting'], canonicalUrl: 'https://blog.example.com/self-host', publishStatus: 'public' });
    expect(story.content).toBe(`# Why we self-host\n\n## Owning the scheduler\n\nOur **own** servers.\n\n![A rack](${media.path})`);
    expect(story.images.map((i) => i.sha256)).toEqual([sha(png)]);
    expect(sim.posts).toHaveLength(1);
  });
});
