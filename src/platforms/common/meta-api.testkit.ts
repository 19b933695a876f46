import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { expect } from 'vitest';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';
import type { ManualClock } from '../../lib/clock.js';
import type { MetaSimulator, MetaSimulatorOptions } from './meta.simulator.js';
import { FB_APP, IG_APP, IG_LOGIN_APP, metaSimulator, platformOriginsEnv } from './meta.testkit.js';

/**
 * The parts of the Meta platforms' API tests: a real app (worker started, manual clock from real
 * time) LISTENING on loopback, so the simulator's Instagram containers can pull the media from
 * `PUBLIC_URL/media/...` as Instagram would, and the user's steps through the HTTP API.
 */

export const PUBLIC_URL = 'https://tidings.example';
export const VIDEO_FIXTURE = join(import.meta.dirname, '../../../test/fixtures/media/h264-aac-faststart.mp4');

export interface MetaApiWorld {
  t: TestApp;
  clock: ManualClock;
  sim: MetaSimulator;
  org: TestOrg;
  close(): Promise<void>;
}

export async function startMetaApiWorld(opts: MetaSimulatorOptions = {}, env: Record<string, string> = {}): Promise<MetaApiWorld> {
  const dataDir = await mkdtemp(join(tmpdir(), 'tidings-meta-api-'));
  const mediaOrigins: Record<string, string> = {};
  const sim = await metaSimulator({ ...opts, mediaOrigins });
  const clock = realtimeManualClock();
  const t = await buildTestApp({
    clock,
    startWorker: true,
    env: {
      DATA_DIR: dataDir,
      PUBLIC_URL,
      PLATFORM_ORIGINS: platformOriginsEnv(sim),
      FACEBOOK_CLIENT_ID: FB_APP.clientId,
      FACEBOOK_CLIENT_SECRET: FB_APP.clientSecret,
      INSTAGRAM_CLIENT_ID: IG_APP.clientId,
      INSTAGRAM_CLIENT_SECRET: IG_APP.clientSecret,
      INSTAGRAM_STANDALONE_CLIENT_ID: IG_LOGIN_APP.clientId,
      INSTAGRAM_STANDALONE_CLIENT_SECRET: IG_LOGIN_APP.clientSecret,
      ...env,
    },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  mediaOrigins[PUBLIC_URL] = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const org = await t.createOrg('Acme');
  return {
    t,
    clock,
    sim,
    org,
    async close() {
      await t.close();
      await sim.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Listed {
  id: string;
  identifier: string;
  name: string;
  profile: string | null;
  picture: string | null;
  refreshNeeded: boolean;
}

/** `GET /social/{id}`, the user's approval at the simulator, the callback: the connected channel. */
export async function connectThroughApi(w: MetaApiWorld, identifier: string): Promise<Listed> {
  const begun = await call(w.t.app, w.org.apiKey, { method: 'GET', url: `/public/v1/social/${identifier}` });
  expect(begun.statusCode, begun.body).toBe(200);
  const url = begun.json<{ url: string }>().url;
  const approved = await fetch(url, { redirect: 'manual' });
  expect(approved.status, await approved.clone().text()).toBe(302);
  const back = new URL(approved.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(`${PUBLIC_URL}/integrations/social/${identifier}/callback`);
  const page = await w.t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
  expect(page.statusCode, page.body).toBe(200);
  const channel = (await listChannels(w)).find((i) => i.identifier === identifier);
  expect(channel, `${identifier} channel`).toBeDefined();
  return channel!;
}

export async function listChannels(w: MetaApiWorld): Promise<Listed[]> {
  const res = await call(w.t.app, w.org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Listed[]>();
}

export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let seed = 0;
/** A picture whose pixels differ from every other one this process makes. */
export async function picture(format: 'png' | 'jpeg', w = 640, h = 480): Promise<Buffer> {
  const s = ++seed;
  const raw = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      raw[i] = (x + s * 37) & 255;
      raw[i + 1] = (y * 2 + s * 11) & 255;
      raw[i + 2] = ((x ^ y) + s * 5) & 255;
    }
  }
  const img = sharp(raw, { raw: { width: w, height: h, channels: 3 } });
  return format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 85 }).toBuffer();
}

export interface Uploaded {
  id: string;
  path: string;
  sha256: string;
}

export async function upload(w: MetaApiWorld, data: Buffer, filename: string): Promise<Uploaded> {
  const item = await uploadMedia(w.t, w.org, data, filename);
  expect(item.size).toBe(data.length);
  return { id: item.id, path: item.path, sha256: sha(data) };
}

export interface PostItemView {
  id: string;
  content: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
}

export interface PostView extends PostItemView {
  nextAttemptAt: string | null;
  attempts: number;
  thread: PostItemView[];
}

/** Creates a post (a thread when several items) to publish now; its id. */
export async function createPost(w: MetaApiWorld, channelId: string, items: { content: string; media?: Uploaded[]; delay?: number }[], settings: Record<string, unknown>): Promise<string> {
  const res = await call(w.t.app, w.org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: {
      type: 'now',
      shortLink: false,
      tags: [],
      posts: [{ integration: { id: channelId }, settings, value: items.map((i) => ({ content: i.content, image: (i.media ?? []).map((m) => ({ id: m.id, path: m.path })), ...(i.delay ? { delay: i.delay } : {}) })) }],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ postId: string }[]>()[0]!.postId;
}

export async function getPost(w: MetaApiWorld, id: string): Promise<PostView> {
  const res = await call(w.t.app, w.org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<PostView>();
}

const done = (i: PostItemView) => i.state === 'PUBLISHED' || i.state === 'ERROR';

/**
 * Waits until the post and its thread items are PUBLISHED or ERROR, bringing each next attempt
 * (a pending check, a thread item) forward: the clock moves to it and its job becomes due.
 */
export async function settle(w: MetaApiWorld, id: string): Promise<{ post: PostView }> {
  let last: PostView | undefined;
  try {
    const post = await waitFor(
      async () => {
        last = await getPost(w, id);
        if (done(last) && last.thread.every(done)) return last;
        const next = last.nextAttemptAt ? Date.parse(last.nextAttemptAt) : Number.NaN;
        if (next > w.clock.now()) w.clock.advance(next - w.clock.now());
        await releaseDueJobs(w.t, w.clock);
        await new Promise((r) => setTimeout(r, 50));
        return undefined;
      },
      45_000,
      `post ${id} to be published`,
    );
    return { post };
  } catch (e) {
    throw new Error(`${(e as Error).message}; last seen: ${JSON.stringify(last)}`, { cause: e });
  }
}
