import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, expectIsolated, type TestApp, type TestOrg, useTestApp } from '../../../test/helpers.js';
import { postUpload, uploadMedia } from '../../../test/media.js';
import { startS3Simulator, type S3Simulator } from '../../../test/simulators/s3.simulator.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A PNG with random bytes after its end (still sniffed as PNG), so every upload differs. */
const pngWithTail = (extra: number) => Buffer.concat([PNG, randomBytes(extra)]);

const KEY_RE = /\d{4}\/\d{2}\/[0-9a-f]{32}\.png$/;

describe('media library on S3-compatible storage', () => {
  let sim: S3Simulator;
  let dataDir: string;

  beforeAll(async () => {
    sim = await startS3Simulator({ buckets: [{ name: 'media' }, { name: 'public-media', publicRead: true }] });
    dataDir = await mkdtemp(join(tmpdir(), 'tidings-s3-media-'));
  });
  afterAll(async () => {
    await sim?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const s3Env = (bucket: string, extra: Record<string, string> = {}) => ({
    DATA_DIR: dataDir,
    PUBLIC_URL: 'https://tidings.example.com',
    MEDIA_MAX_IMAGE_BYTES: String(1024 * 1024),
    S3_BUCKET: bucket,
    S3_ENDPOINT: sim.endpoint,
    S3_ACCESS_KEY_ID: sim.accessKeyId,
    S3_SECRET_ACCESS_KEY: sim.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
    ...extra,
  });

  /** Uploads as a browser would send a PNG: as `photo.png`, declared `image/png`. */
  const upload = (t: TestApp, org: TestOrg, data: Buffer) => uploadMedia(t, org, data, 'photo.png', { type: 'image/png' });

  describe('private bucket (no S3_PUBLIC_URL): GET /media/<key> redirects to a presigned URL', () => {
    const { t, orgs: { acme, beta } } = useTestApp(() => ({ env: s3Env('media', { S3_PRESIGN_SECONDS: '900' }) }), 'Acme', 'Beta');

    it('stores the upload in the bucket under the media key and serves it through a redirect', async () => {
      const bytes = pngWithTail(50_000);
      const item = await upload(t, acme, bytes);
      expect(item).toMatchObject({ mimeType: 'image/png', size: bytes.length });
      expect(item.path).toMatch(new RegExp(`^https://tidings\\.example\\.com/media/${KEY_RE.source}`));
      const key = item.path.split('/media/')[1]!;
      expect(item.name).toBe(key.split('/').pop());
      expect(sha(sim.object('media', key)!)).toBe(sha(bytes));
      // private indeed: the bucket does not answer without a signature
      expect((await fetch(`${sim.endpoint}/media/${key}`)).status).toBe(403);

      const res = await t.app.inject({ method: 'GET', url: `/media/${key}` });
      expect(res.statusCode).toBe(302);
      const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(res.headers['cache-control']))?.[1]);
      expect(maxAge).toBeGreaterThan(0);
      expect(maxAge).toBeLessThan(900);
      const location = String(res.headers.location);
      expect(location.startsWith(`${sim.endpoint}/media/${key}?`)).toBe(true);
      expect(location).toContain('X-Amz-Expires=900');
      const fetched = await fetch(location);
      expect(fetched.status).toBe(200);
      expect(fetched.headers.get('content-type')).toBe('image/png');
      expect(sha(Buffer.from(await fetched.arrayBuffer()))).toBe(sha(bytes));
    });

    it('hands the platform adapters the same bytes (file-backed Blob from the bucket)', async () => {
      const bytes = pngWithTail(20_000);
      const item = await upload(t, acme, bytes);
      const blob = await t.deps.services.media.blob({ id: item.id });
      expect(blob.type).toBe('image/png');
      expect(sha(Buffer.from(await blob.arrayBuffer()))).toBe(sha(bytes));
    });

    it('answers 404, not a redirect, for keys of no stored media row', async () => {
      const item = await upload(t, acme, pngWithTail(10));
      const [yyyy, mm] = item.path.split('/media/')[1]!.split('/');
      for (const url of [`/media/${yyyy}/${mm}/${'0'.repeat(32)}.png`, '/media/../../etc/passwd', `/media/${yyyy}/${mm}/${item.name}.tmp`]) {
        const res = await t.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(404);
        expect(res.headers.location, url).toBeUndefined();
      }
    });

    it('DELETE /media/{id} removes the object; the key then answers 404', async () => {
      const item = await upload(t, acme, pngWithTail(3000));
      const key = item.path.split('/media/')[1]!;
      expect(sim.keys('media')).toContain(key);

      await expectIsolated(t.app, { method: 'DELETE', url: `/public/v1/media/${item.id}` }, acme, beta, { ownerCheck: false });
      expect(sim.keys('media')).toContain(key); // another organisation's attempt changed nothing

      const del = await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/media/${item.id}` });
      expect(del.statusCode, del.body).toBe(200);
      expect(sim.keys('media')).not.toContain(key);
      expectError(await t.app.inject({ method: 'GET', url: `/media/${key}` }), 404, 'NOT_FOUND');
      expectError(await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/media/${item.id}` }), 404, 'NOT_FOUND');
    });

    it('keeps nothing in the bucket for a refused upload', async () => {
      const before = sim.keys('media');
      const res = await postUpload(t, acme, pngWithTail(2 * 1024 * 1024), 'photo.png', { type: 'image/png' });
      expectError(res, 413, 'PAYLOAD_TOO_LARGE');
      expect(sim.keys('media')).toEqual(before);
      expect(sim.openUploads('media')).toBe(0);
    });
  });

  describe('public bucket or CDN (S3_PUBLIC_URL)', () => {
    const { t, orgs: { acme } } = useTestApp(() => ({ env: s3Env('public-media', { S3_PUBLIC_URL: `${sim.endpoint}/public-media/` }) }), 'Acme');

    it('records the path under S3_PUBLIC_URL, where the same bytes are served', async () => {
      const bytes = pngWithTail(40_000);
      const item = await upload(t, acme, bytes);
      expect(item.path).toMatch(new RegExp(`^${sim.endpoint}/public-media/${KEY_RE.source}`));
      const res = await fetch(item.path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(sha(bytes));

      const del = await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/media/${item.id}` });
      expect(del.statusCode).toBe(200);
      expect((await fetch(item.path)).status).toBe(404);
    });
  });
});
