import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO, startBlueskySimulator } from '../../platforms/bluesky/bluesky.simulator.js';
import { createChannel, realtimeManualClock, waitFor } from '../../../test/factories.js';
import { buildTestApp, call, type TestApp, type TestOrg } from '../../../test/helpers.js';
import { uploadMedia } from '../../../test/media.js';

/**
 * Publish-time image fitting (issue 5): a picture beyond the platform's limits is accepted when
 * the post is made and re-encoded when it is published, instead of failing the post.
 */

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Random noise does not compress: a 1200×900 PNG of it is over 3 MB. */
function noisePng(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

async function setupBluesky() {
  const sky = await startBlueskySimulator();
  closers.push(() => sky.close());
  sky.addAccount({ handle: 'acme.bsky.social', did: 'did:plc:acme123', password: 'app-pass-1234', displayName: 'Acme' });
  const dataDir = await mkdtemp(join(tmpdir(), 'tidings-fit-'));
  closers.push(() => rm(dataDir, { recursive: true, force: true }));
  const origins = [BSKY_ENTRYWAY, BSKY_PDS, BSKY_VIDEO].map((o) => `${o}=${sky.origin}`).join(',');
  const t = await buildTestApp({ env: { PLATFORM_ORIGINS: origins, DATA_DIR: dataDir }, clock: realtimeManualClock(), startWorker: true });
  closers.push(() => t.close());
  const org = await t.createOrg('Acme');
  const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/bluesky', payload: { identifier: 'acme.bsky.social', password: 'app-pass-1234' } });
  expect(res.statusCode, res.body).toBe(201);
  return { sky, t, org, channel: res.json<{ id: string }>().id };
}

async function postNow(t: TestApp, org: TestOrg, channel: string, image: { id: string; path: string }[], extra: Record<string, unknown> = {}) {
  const res = await call(t.app, org.apiKey, {
    method: 'POST',
    url: '/public/v1/posts',
    payload: {
      type: 'now',
      date: new Date().toISOString(),
      shortLink: false,
      tags: [],
      posts: [{ integration: { id: channel }, value: [{ content: 'A big picture', image }], ...extra }],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ postId: string }[]>()[0]!.postId;
}

async function settled(t: TestApp, org: TestOrg, id: string) {
  return waitFor(async () => {
    const r = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${id}` });
    const body = r.json<{ state: string; error: string | null; releaseId: string | null }>();
    return body.state === 'PUBLISHED' || body.state === 'ERROR' ? body : undefined;
  }, 30_000, `post ${id} to settle`);
}

type Bluesky = Awaited<ReturnType<typeof setupBluesky>>;

/** Uploads `data`, posts it to the Bluesky channel now, waits: the post and what Bluesky stored. */
async function publishPicture({ sky, t, org, channel }: Bluesky, data: Buffer, filename: string, type: string) {
  const item = await uploadMedia(t, org, data, filename, { type });
  const post = await settled(t, org, await postNow(t, org, channel, [{ id: item.id, path: item.path }]));
  const record = post.releaseId ? sky.find(post.releaseId) : undefined;
  const embed = record?.value.embed as { images: { aspectRatio?: { width: number; height: number } }[] } | undefined;
  return { item, post, sent: record?.media ?? [], aspectRatio: embed?.images[0]?.aspectRatio };
}

describe('publish-time image fitting', () => {
  it('a 3 MB PNG is accepted for Bluesky (1,000,000 bytes) and arrives re-encoded under the limit, the stored original untouched', async () => {
    const bsky = await setupBluesky();
    const png = await noisePng(1200, 900);
    expect(png.length).toBeGreaterThan(3_000_000);
    const { item, post, sent, aspectRatio } = await publishPicture(bsky, png, 'big.png', 'image/png');
    expect(post.state, post.error ?? '').toBe('PUBLISHED');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.size).toBeLessThanOrEqual(1_000_000);
    expect(sent[0]!.mimeType).toBe('image/jpeg');
    expect(sent[0]!.sha256).not.toBe(sha(png));
    // The embed's aspect ratio is the re-encoded picture's.
    expect(aspectRatio!.width / aspectRatio!.height).toBeCloseTo(1200 / 900, 1);

    // The library keeps the original bytes.
    const file = await bsky.t.app.inject({ method: 'GET', url: new URL(item.path).pathname });
    expect(file.statusCode).toBe(200);
    expect(sha(file.rawPayload)).toBe(sha(png));
  });

  it('a picture within the limits is sent byte for byte', async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    const { post, sent } = await publishPicture(await setupBluesky(), png, 'small.png', 'image/png');
    expect(post.state, post.error ?? '').toBe('PUBLISHED');
    expect([sent[0]!.sha256, sent[0]!.mimeType]).toEqual([sha(png), 'image/png']);
  });

  it('an AVIF, which no platform takes, arrives as a JPEG of the same size', async () => {
    const avif = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#2266aa' } })
      .avif()
      .toBuffer();
    const { post, sent, aspectRatio } = await publishPicture(await setupBluesky(), avif, 'picture.avif', 'image/avif');
    expect(post.state, post.error ?? '').toBe('PUBLISHED');
    expect(sent[0]!.mimeType).toBe('image/jpeg');
    expect(aspectRatio).toEqual({ width: 120, height: 80 });
  });

  it('a picture that cannot be fitted fails the post readably, sending nothing', async () => {
    // A broken PNG: its first bytes are a real PNG header (so the upload is accepted as
    // image/png with dimensions), the rest is noise, so sharp cannot decode it at publish time.
    const bsky = await setupBluesky();
    const real = await noisePng(1000, 800);
    const broken = Buffer.concat([real.subarray(0, 4096), randomBytes(1_200_000)]);
    const { post } = await publishPicture(bsky, broken, 'broken.png', 'image/png');
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/could not be re-encoded for .*Bluesky/i);
    expect(bsky.sky.records).toHaveLength(0);
  });

  it('Instagram-only rules are checked when the post is made: a wrong aspect ratio is a 400 naming the picture', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tidings-fit-'));
    closers.push(() => rm(dataDir, { recursive: true, force: true }));
    const t = await buildTestApp({ env: { DATA_DIR: dataDir } });
    closers.push(() => t.close());
    const org = await t.createOrg('Acme');
    const ig = await createChannel(t, org, 'instagram');
    const wide = await sharp({ create: { width: 1000, height: 400, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const item = await uploadMedia(t, org, wide, 'wide.png', { type: 'image/png' });
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: {
        type: 'schedule',
        date: new Date(Date.now() + 3600_000).toISOString(),
        shortLink: false,
        tags: [],
        posts: [{ integration: { id: ig.id }, value: [{ content: 'Wide', image: [{ id: item.id, path: item.path }] }], settings: { __type: 'instagram', post_type: 'post' } }],
      },
    });
    expect(res.statusCode, res.body).toBe(400);
    const body = res.json<{ fields?: { path: string; message: string }[] }>();
    expect(body.fields?.map((f) => f.path)).toContain('posts.0.value.0.image.0');
    expect(JSON.stringify(body)).toMatch(/crop it/);
  });
});
