import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ListMultipartUploadsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Simulator, type S3Simulator } from '../../../test/simulators/s3.simulator.js';
import { createS3Storage, type S3StorageOptions } from './s3-storage.js';
import { mediaStorageContract } from './storage.contract.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function storageOn(sim: S3Simulator, overrides: Partial<S3StorageOptions> = {}) {
  const cacheDir = await mkdtemp(join(tmpdir(), 'tidings-s3-cache-'));
  const storage = createS3Storage({
    bucket: 'media',
    region: 'us-east-1',
    endpoint: sim.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: sim.accessKeyId, secretAccessKey: sim.secretAccessKey },
    presignSeconds: 3600,
    cacheDir,
    ...overrides,
  });
  return { storage, cacheDir };
}

mediaStorageContract('S3-compatible bucket', async () => {
  const sim = await startS3Simulator({ buckets: [{ name: 'media' }] });
  const { storage, cacheDir } = await storageOn(sim);
  return {
    storage,
    // Asked through the S3 API itself: objects and unfinished multipart uploads.
    async leftovers() {
      const objects = await storage.client.send(new ListObjectsV2Command({ Bucket: 'media' }));
      const uploads = await storage.client.send(new ListMultipartUploadsCommand({ Bucket: 'media' }));
      return [...(objects.Contents ?? []).map((o) => `object ${o.Key}`), ...(uploads.Uploads ?? []).map((u) => `multipart upload ${u.Key} ${u.UploadId}`)];
    },
    async close() {
      await storage.close?.();
      await sim.close();
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
});

describe('S3 storage driver', () => {
  let sim: S3Simulator;
  let cleanup: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    sim = await startS3Simulator({ buckets: [{ name: 'media' }, { name: 'public', publicRead: true }] });
  });
  afterAll(async () => {
    for (const c of cleanup) await c();
    cleanup = [];
    await sim.close();
  });

  async function make(overrides: Partial<S3StorageOptions> = {}) {
    const made = await storageOn(sim, overrides);
    cleanup.push(async () => {
      await made.storage.close?.();
      await rm(made.cacheDir, { recursive: true, force: true });
    });
    return made;
  }

  it('sends a large stream as a multipart upload of 8 MiB parts with the content type', async () => {
    const { storage } = await make();
    const key = storage.newKey('mp4', new Date());
    const bytes = randomBytes(17 * 1024 * 1024);
    const from = sim.log.length;
    await storage.put(key, Readable.from([bytes.subarray(0, 5_000_000), bytes.subarray(5_000_000)]));
    const requests = sim.log.slice(from);
    expect(requests.filter((r) => r.startsWith(`POST /media/${key}?uploads`))).toHaveLength(1);
    expect(requests.filter((r) => r.startsWith(`PUT /media/${key}?`) && r.includes('partNumber='))).toHaveLength(3);
    expect(sha(sim.object('media', key)!)).toBe(sha(bytes));
    const res = await fetch((await storage.signedUrl!(key)).url);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(sha(bytes));
  });

  it('aborts the multipart upload it started when the stream fails after the first part', async () => {
    const { storage } = await make();
    const key = storage.newKey('mp4', new Date());
    async function* failing(): AsyncGenerator<Buffer> {
      for (let i = 0; i < 10; i++) yield randomBytes(1024 * 1024);
      throw new Error('connection reset');
    }
    const from = sim.log.length;
    await expect(storage.put(key, Readable.from(failing()))).rejects.toThrow(/connection reset/);
    const requests = sim.log.slice(from);
    const uploadId = /uploadId=([0-9a-f]+)/.exec(requests.find((r) => r.includes('partNumber=1')) ?? '')?.[1];
    expect(uploadId).toBeDefined();
    expect(requests).toContain(`DELETE /media/${key}?uploadId=${uploadId}`);
    expect(sim.openUploads('media')).toBe(0);
    expect(sim.keys('media')).not.toContain(key);
  });

  it('sends a small stream as one PutObject', async () => {
    const { storage } = await make();
    const key = storage.newKey('png', new Date());
    const from = sim.log.length;
    await storage.put(key, Readable.from([randomBytes(1000)]));
    expect(sim.log.slice(from)).toEqual([`PUT /media/${key}`]);
  });

  it('fails with the server error when the credentials are wrong (requests are signed)', async () => {
    const { storage } = await make({ credentials: { accessKeyId: sim.accessKeyId, secretAccessKey: 'wrong-secret' } });
    const key = storage.newKey('png', new Date());
    await expect(storage.put(key, Readable.from([randomBytes(100)]))).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
    const { storage: other } = await make({ credentials: { accessKeyId: 'SOMEONEELSE', secretAccessKey: sim.secretAccessKey } });
    await expect(other.stat(key)).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    expect(sim.keys('media')).not.toContain(key);
  });

  it('presigns GetObject URLs for private buckets; the bucket itself refuses anonymous reads', async () => {
    const { storage } = await make({ presignSeconds: 120 });
    const key = storage.newKey('jpg', new Date());
    const bytes = randomBytes(5000);
    await storage.put(key, Readable.from([bytes]));
    expect(storage.publicUrl(key)).toBeUndefined();
    const signed = await storage.signedUrl!(key);
    expect(signed.expiresInSeconds).toBe(120);
    expect(signed.url).toContain('X-Amz-Expires=120');
    const res = await fetch(signed.url);
    expect(res.status).toBe(200);
    expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(sha(bytes));
    expect((await fetch(`${sim.endpoint}/media/${key}`)).status).toBe(403);
    // a tampered URL is refused
    expect((await fetch(signed.url.replace(key, storage.newKey('jpg', new Date())))).status).toBe(403);
  });

  it('names the public URL of an object when S3_PUBLIC_URL is set', async () => {
    const { storage } = await make({ bucket: 'public', publicUrl: `${sim.endpoint}/public` });
    const key = storage.newKey('gif', new Date());
    const bytes = randomBytes(777);
    await storage.put(key, Readable.from([bytes]));
    expect(storage.publicUrl(key)).toBe(`${sim.endpoint}/public/${key}`);
    const res = await fetch(storage.publicUrl(key)!);
    expect(res.headers.get('content-type')).toBe('image/gif');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(sha(bytes));
  });

  it('answers absent objects: stat/open undefined, blob rejects, delete is fine', async () => {
    const { storage } = await make();
    const key = storage.newKey('png', new Date());
    expect(await storage.stat(key)).toBeUndefined();
    expect(await storage.open(key)).toBeUndefined();
    expect(await storage.open(key, { start: 0, end: 10 })).toBeUndefined();
    await expect(storage.delete(key)).resolves.toBeUndefined();
    await expect(storage.blob(key, 'image/png')).rejects.toThrow(/is not in bucket media/);
  });

  describe('blob cache', () => {
    it('downloads once, reuses the copy, and removes it only after an hour without use', async () => {
      let now = Date.now();
      const { storage, cacheDir } = await make({ now: () => now });
      const key = storage.newKey('mp4', new Date());
      const bytes = randomBytes(3 * 1024 * 1024);
      await storage.put(key, Readable.from([bytes]));
      const gets = () => sim.log.filter((r) => r === `GET /media/${key}`).length;

      const first = await storage.blob(key, 'video/mp4');
      expect(gets()).toBe(1);
      expect(await readdir(cacheDir)).toHaveLength(1);

      now += 40 * 60_000; // used again 40 minutes later: served from the copy
      const second = await storage.blob(key, 'video/mp4');
      expect(gets()).toBe(1);
      expect(sha(Buffer.from(await first.arrayBuffer()))).toBe(sha(bytes));

      now += 40 * 60_000; // 80 minutes after the download, 40 after the last use: kept
      expect(await storage.sweepCache()).toBe(0);
      expect(sha(Buffer.from(await second.arrayBuffer()))).toBe(sha(bytes));

      now += 21 * 60_000; // 61 minutes after the last use: removed
      expect(await storage.sweepCache()).toBe(1);
      expect(await readdir(cacheDir)).toEqual([]);

      const third = await storage.blob(key, 'video/mp4'); // downloaded again
      expect(gets()).toBe(2);
      expect(sha(Buffer.from(await third.arrayBuffer()))).toBe(sha(bytes));
    });

    it('keeps a copy another process used recently (its atime) and clears abandoned partial downloads', async () => {
      let now = Date.now();
      const { storage, cacheDir } = await make({ now: () => now });
      const key = storage.newKey('png', new Date());
      await storage.put(key, Readable.from([randomBytes(1000)]));
      await storage.blob(key, 'image/png');
      const [name] = await readdir(cacheDir);
      const file = join(cacheDir, name!);
      const { mtime } = await stat(file);

      now += 2 * 3600_000;
      // another process sharing the folder used it 10 minutes ago
      await utimes(file, (now - 10 * 60_000) / 1000, mtime);
      const part = join(cacheDir, `${name}.abcdef012345.part`);
      await writeFile(part, 'partial');
      await utimes(part, (now - 2 * 3600_000) / 1000, (now - 2 * 3600_000) / 1000);

      expect(await storage.sweepCache()).toBe(1);
      expect(await readdir(cacheDir)).toEqual([name]);
    });

    it('shares one download between concurrent callers', async () => {
      const { storage, cacheDir } = await make();
      const key = storage.newKey('jpg', new Date());
      const bytes = randomBytes(2 * 1024 * 1024);
      await storage.put(key, Readable.from([bytes]));
      const blobs = await Promise.all([1, 2, 3, 4].map(() => storage.blob(key, 'image/jpeg')));
      expect(sim.log.filter((r) => r === `GET /media/${key}`)).toHaveLength(1);
      for (const b of blobs) expect(sha(Buffer.from(await b.arrayBuffer()))).toBe(sha(bytes));
      expect(await readdir(cacheDir)).toHaveLength(1);
    });
  });
});
