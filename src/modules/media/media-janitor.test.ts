import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CreateMultipartUploadCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { call, type TestApp, type TestOrg, useTestApp } from '../../../test/helpers.js';
import { postUpload, uploadMedia, type MediaItem } from '../../../test/media.js';
import { startS3Simulator, type S3Simulator } from '../../../test/simulators/s3.simulator.js';
import type { createS3Storage } from '../../core/media/s3-storage.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** A PNG with random bytes after its end, so every upload differs. */
const pngWithTail = (extra: number) => Buffer.concat([PNG, randomBytes(extra)]);
const HOUR = 3600_000;

const keyOf = (item: MediaItem) => new URL(item.path).pathname.replace(/^\/media\//, '');
const upload = (t: TestApp, org: TestOrg, bytes: Buffer) => uploadMedia(t, org, bytes, 'photo.png', { type: 'image/png' });

/**
 * An object whose upload a crash cut between the stored file and the row insert: the key was
 * recorded unclaimed (at `at`), the bytes stored, no row.
 */
async function crashedUpload(t: TestApp, at = new Date(), ext = 'png') {
  const key = t.deps.storage.newKey(ext, at);
  await t.deps.repositories.media.markUnclaimed(key, at);
  await t.deps.storage.put(key, Readable.from([randomBytes(2000)]));
  return key;
}

/** An object this database never recorded (another installation's, a restored backup's). */
async function foreignObject(t: TestApp) {
  const key = t.deps.storage.newKey('png', new Date());
  await t.deps.storage.put(key, Readable.from([randomBytes(2000)]));
  return key;
}

const unclaimedKeys = async (t: TestApp) => (await t.deps.repositories.media.unclaimedBefore(new Date(Date.now() + 1000 * HOUR), 1000)).map((r) => r.storageKey);

describe('media storage janitor: local files', () => {
  let dataDir: string;
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  const { t, orgs: { acme } } = useTestApp(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tidings-janitor-'));
    return { env: { DATA_DIR: dataDir, MEDIA_MAX_IMAGE_BYTES: '100000' } };
  }, 'Acme');

  const fileOf = (key: string) => join(dataDir, 'media', key);
  const exists = (path: string) => stat(path).then(
    () => true,
    () => false,
  );
  /** A temp file of `put` as a killed process leaves it, last written at `at`. */
  async function plantPartial(at: Date) {
    const path = `${fileOf(t.deps.storage.newKey('mp4', new Date()))}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(path, randomBytes(5000));
    await utimes(path, at, at);
    return path;
  }

  it('an upload, accepted or refused, leaves no unclaimed key behind', async () => {
    const before = await unclaimedKeys(t);
    const item = await upload(t, acme, pngWithTail(1000));
    const refused = await postUpload(t, acme, pngWithTail(200_000), 'big.png');
    expect(refused.statusCode).toBe(413);
    expect(await unclaimedKeys(t)).toEqual(before);
    expect(await exists(fileOf(keyOf(item)))).toBe(true);
  });

  it('removes the objects of interrupted uploads after a day, and partial uploads idle for an hour; uploaded items, young and foreign objects stay', async () => {
    const bytes = pngWithTail(40_000);
    const item = await upload(t, acme, bytes);
    const t0 = Date.now();
    const crashed = await crashedUpload(t, new Date(t0));
    const foreign = await foreignObject(t);
    const oldPartial = await plantPartial(new Date(t0 - 2 * HOUR));
    const youngPartial = await plantPartial(new Date(t0 + 23 * HOUR));
    const youngCrash = await crashedUpload(t, new Date(t0 + 23 * HOUR)); // an upload of an hour before the sweep

    expect(await t.deps.mediaJanitor.sweep(new Date(t0 + 23.5 * HOUR))).toEqual({ partials: 1, orphans: 0 });
    expect(await exists(oldPartial)).toBe(false);
    expect(await exists(youngPartial)).toBe(true);
    expect(await exists(fileOf(crashed))).toBe(true); // not a day old yet

    expect(await t.deps.mediaJanitor.sweep(new Date(t0 + 25 * HOUR))).toEqual({ partials: 1, orphans: 1 });
    expect(await exists(fileOf(crashed))).toBe(false);
    expect(await exists(youngPartial)).toBe(false);
    expect(await exists(fileOf(youngCrash))).toBe(true);
    expect(await unclaimedKeys(t)).toEqual([youngCrash]);

    const served = await t.app.inject({ method: 'GET', url: `/media/${keyOf(item)}` });
    expect(served.statusCode).toBe(200);
    expect(sha(served.rawPayload)).toBe(sha(bytes));
    // never recorded by this database: never touched, however old
    expect(await t.deps.mediaJanitor.sweep(new Date(t0 + 1000 * HOUR))).toEqual({ partials: 0, orphans: 1 });
    expect(await exists(fileOf(foreign))).toBe(true);
    expect(await exists(fileOf(youngCrash))).toBe(false);
    expect(await exists(fileOf(keyOf(item)))).toBe(true);
  });

  it('finishes a deletion a crash interrupted: the object of the soft-deleted row goes, a live one never', async () => {
    const deleted = await upload(t, acme, pngWithTail(1000));
    const live = await upload(t, acme, pngWithTail(1000));
    const t0 = Date.now();
    // the soft delete committed (marking the key unclaimed), the process died before the file went
    await t.deps.repositories.media.softDelete(acme.id, deleted.id, new Date(t0));
    expect(await exists(fileOf(keyOf(deleted)))).toBe(true);
    // a key a live row names is never removed, even if recorded unclaimed by mistake
    await t.deps.repositories.media.markUnclaimed(keyOf(live), new Date(t0));

    expect(await t.deps.mediaJanitor.sweep(new Date(t0 + 25 * HOUR))).toEqual({ partials: 0, orphans: 1 });
    expect(await exists(fileOf(keyOf(deleted)))).toBe(false);
    expect(await exists(fileOf(keyOf(live)))).toBe(true);
    expect(await unclaimedKeys(t)).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: `/media/${keyOf(live)}` })).statusCode).toBe(200);
  });

  it('DELETE /media/{id} while storage fails: the item is gone at once, its object follows with the janitor', async () => {
    const item = await upload(t, acme, pngWithTail(1000));
    const storage = t.deps.storage;
    const realDelete = storage.delete.bind(storage);
    storage.delete = () => Promise.reject(new Error('storage is down'));
    try {
      expect((await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/media/${item.id}` })).statusCode).toBe(200);
    } finally {
      storage.delete = realDelete;
    }
    expect(await exists(fileOf(keyOf(item)))).toBe(true);
    expect(await unclaimedKeys(t)).toEqual([keyOf(item)]);
    expect((await t.app.inject({ method: 'GET', url: `/media/${keyOf(item)}` })).statusCode).toBe(404);
    await t.deps.mediaJanitor.sweep(new Date(Date.now() + 25 * HOUR));
    expect(await exists(fileOf(keyOf(item)))).toBe(false);
    expect(await unclaimedKeys(t)).toEqual([]);
  });

  it('DELETE /media/{id} removes the object and leaves no unclaimed key', async () => {
    const item = await upload(t, acme, pngWithTail(1000));
    expect((await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/media/${item.id}` })).statusCode).toBe(200);
    expect(await exists(fileOf(keyOf(item)))).toBe(false);
    expect(await unclaimedKeys(t)).toEqual([]);
  });
});

describe('media storage janitor: S3-compatible bucket', () => {
  let sim: S3Simulator;
  let dataDir: string;
  /** the simulator's clock (Initiated, part times); undefined: the real time */
  let simNow: number | undefined;
  afterAll(async () => {
    await sim?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const { t, orgs: { acme } } = useTestApp(async () => {
    // pages of 2: the listings of uploads and parts take several pages
    sim = await startS3Simulator({ buckets: [{ name: 'media' }], maxKeys: 2, now: () => new Date(simNow ?? Date.now()) });
    dataDir = await mkdtemp(join(tmpdir(), 'tidings-janitor-s3-'));
    return {
      env: {
        DATA_DIR: dataDir,
        PUBLIC_URL: 'https://tidings.example.com',
        S3_BUCKET: 'media',
        S3_ENDPOINT: sim.endpoint,
        S3_ACCESS_KEY_ID: sim.accessKeyId,
        S3_SECRET_ACCESS_KEY: sim.secretAccessKey,
        S3_FORCE_PATH_STYLE: 'true',
      },
    };
  }, 'Acme');

  const s3 = () => t.deps.storage as ReturnType<typeof createS3Storage>;
  /** A multipart upload started at `startedAt` with parts sent at `partsAt`, never completed. */
  async function startUpload(startedAt: number, partsAt: number[]) {
    const key = s3().newKey('mp4', new Date());
    simNow = startedAt;
    const { UploadId } = await s3().client.send(new CreateMultipartUploadCommand({ Bucket: 'media', Key: key }));
    for (const [i, at] of partsAt.entries()) {
      simNow = at;
      await s3().client.send(new UploadPartCommand({ Bucket: 'media', Key: key, UploadId, PartNumber: i + 1, Body: randomBytes(1000) }));
    }
    simNow = undefined;
    return key;
  }
  const aborted = (key: string) => sim.log.some((l) => l.startsWith(`DELETE /media/${key}?uploadId=`));

  it('aborts abandoned multipart uploads, spares one still sending parts, removes interrupted uploads’ objects, never a foreign one', async () => {
    const t0 = Date.now();
    const bytes = pngWithTail(30_000);
    const item = await upload(t, acme, bytes);
    const crashed = await crashedUpload(t, new Date(t0));
    const foreign = await foreignObject(t);
    const abandoned = [await startUpload(t0 + 21 * HOUR, [t0 + 21 * HOUR]), await startUpload(t0 + 22 * HOUR, []), await startUpload(t0 + 20 * HOUR, [t0 + 21 * HOUR])];
    // started hours before the sweep, its newest part (on the second page of parts) is recent
    const sending = await startUpload(t0 + 22 * HOUR, [t0 + 22 * HOUR, t0 + 22 * HOUR, t0 + 24.8 * HOUR]);
    expect(sim.openUploads('media')).toBe(4);

    const from = sim.log.length;
    expect(await t.deps.mediaJanitor.sweep(new Date(t0 + 25 * HOUR))).toEqual({ partials: 3, orphans: 1 });
    expect(sim.openUploads('media')).toBe(1);
    for (const key of abandoned) expect(aborted(key), key).toBe(true);
    expect(aborted(sending)).toBe(false);
    // the listings were read to their ends, page by page (4 uploads, 3 parts; pages of 2)
    const requests = sim.log.slice(from);
    expect(requests.filter((l) => l.startsWith('GET /media/?') && l.includes('uploads='))).toHaveLength(2);
    expect(requests.filter((l) => l.startsWith(`GET /media/${sending}?`))).toHaveLength(2);
    expect(sim.keys('media')).toEqual([keyOf(item), foreign].sort());
    expect(crashed).not.toBe(foreign);

    const res = await t.app.inject({ method: 'GET', url: `/media/${keyOf(item)}` });
    expect(res.statusCode).toBe(302);
    const fetched = await fetch(String(res.headers.location));
    expect(fetched.status).toBe(200);
    expect(sha(Buffer.from(await fetched.arrayBuffer()))).toBe(sha(bytes));
  });
});
