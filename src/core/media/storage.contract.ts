import { createHash, randomBytes } from 'node:crypto';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { CreateMultipartUploadCommand, UploadPartCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_KEY_RE, type MediaStorage } from './storage.js';

export interface StorageContractSetup {
  storage: MediaStorage;
  /**
   * Everything the backend holds right now, temporary things included (files and temp files of
   * local storage; objects and unfinished multipart uploads of S3), one string each.
   */
  leftovers(): Promise<string[]>;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** `total` pseudo-random bytes in 1 MiB chunks, hashed as they are produced. */
function generated(total: number) {
  const hash = createHash('sha256');
  const seed = randomBytes(MiB);
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let sent = 0, i = 0; sent < total; i++) {
      const chunk = Buffer.from(seed.subarray(0, Math.min(MiB, total - sent)));
      chunk.writeUInt32BE(i, 0); // no two chunks alike
      hash.update(chunk);
      sent += chunk.length;
      yield chunk;
    }
  }
  return { stream: Readable.from(chunks()), sha256: () => hash.digest('hex') };
}

/**
 * Leaves in the backend what a process killed in the middle of `put(key)` leaves (written directly,
 * not through the driver): local storage's temp file next to the target, with its mtime set to
 * `lastWrite`; S3's multipart upload with one part sent and never completed (the server dates it).
 */
async function crashMidPut(storage: MediaStorage, key: string, lastWrite: Date): Promise<void> {
  const driver = storage as Partial<{ root: string; client: S3Client; bucket: string }>;
  if (driver.root !== undefined) {
    const temp = join(driver.root, `${key}.${randomBytes(6).toString('hex')}.tmp`);
    await mkdir(dirname(temp), { recursive: true });
    await writeFile(temp, randomBytes(70_000));
    await utimes(temp, lastWrite, lastWrite);
  } else if (driver.client && driver.bucket) {
    const created = await driver.client.send(new CreateMultipartUploadCommand({ Bucket: driver.bucket, Key: key }));
    await driver.client.send(new UploadPartCommand({ Bucket: driver.bucket, Key: key, UploadId: created.UploadId, PartNumber: 1, Body: randomBytes(70_000) }));
  } else {
    throw new Error('crashMidPut knows local storage (root) and S3 (client, bucket) only');
  }
}

/**
 * The behaviour every `MediaStorage` driver shares, run unchanged against each of them
 * (local files, S3-compatible bucket).
 */
export function mediaStorageContract(name: string, setup: () => Promise<StorageContractSetup>) {
  describe(`MediaStorage contract: ${name}`, () => {
    let s: StorageContractSetup;
    let storage: MediaStorage;
    const newKey = (ext = 'png') => storage.newKey(ext, new Date());

    beforeAll(async () => {
      s = await setup();
      storage = s.storage;
    });
    afterAll(async () => {
      await s?.close();
    });

    it('makes fresh keys of the one shape <yyyy>/<mm>/<32 hex>.<ext>', () => {
      const a = storage.newKey('mp4', new Date(Date.UTC(2026, 0, 31, 23, 59)));
      expect(a).toMatch(MEDIA_KEY_RE);
      expect(a.startsWith('2026/01/')).toBe(true);
      expect(a.endsWith('.mp4')).toBe(true);
      expect(storage.newKey('mp4', new Date(Date.UTC(2026, 0, 31, 23, 59)))).not.toBe(a);
    });

    it('stores, reads, stats and deletes an object', async () => {
      const bytes = randomBytes(300_000);
      const key = newKey();
      expect(await storage.stat(key)).toBeUndefined();
      expect(await storage.put(key, Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]))).toEqual({ size: bytes.length });
      expect(await storage.stat(key)).toEqual({ size: bytes.length });
      const opened = await storage.open(key);
      expect(opened?.size).toBe(bytes.length);
      expect(sha(await readAll(opened!.stream))).toBe(sha(bytes));
      expect(await s.leftovers()).toEqual(expect.arrayContaining([expect.stringContaining(key.split('/').pop()!)]));

      await storage.delete(key);
      expect(await storage.stat(key)).toBeUndefined();
      expect(await storage.open(key)).toBeUndefined();
      await expect(storage.delete(key)).resolves.toBeUndefined(); // missing is fine
      expect((await s.leftovers()).filter((l) => l.includes(key.split('/').pop()!))).toEqual([]);
    });

    it('reads byte ranges: the start, the middle, the end', async () => {
      const bytes = randomBytes(10_000);
      const key = newKey('jpg');
      await storage.put(key, Readable.from([bytes]));
      for (const range of [
        { start: 0, end: 99 },
        { start: 4321, end: 6789 },
        { start: 10_000 - 500, end: 9_999 }, // what `bytes=-500` resolves to
        { start: 9_999, end: 9_999 },
      ]) {
        const opened = await storage.open(key, range);
        expect(opened?.size, `size with range ${range.start}-${range.end}`).toBe(bytes.length);
        const got = await readAll(opened!.stream);
        expect(got.equals(bytes.subarray(range.start, range.end + 1)), `bytes ${range.start}-${range.end}`).toBe(true);
      }
      await storage.delete(key);
    });

    it('streams a 20 MiB object through and back', async () => {
      const key = newKey('mp4');
      const source = generated(20 * MiB);
      expect(await storage.put(key, source.stream)).toEqual({ size: 20 * MiB });
      const expected = source.sha256();
      expect(await storage.stat(key)).toEqual({ size: 20 * MiB });
      const opened = await storage.open(key);
      const hash = createHash('sha256');
      for await (const chunk of opened!.stream) hash.update(chunk as Buffer);
      expect(hash.digest('hex')).toBe(expected);
      await storage.delete(key);
    });

    it('leaves nothing behind when the stream fails part-way (small and past one 8 MiB part)', async () => {
      for (const before of [64 * 1024, 9 * MiB]) {
        const existing = (await s.leftovers()).sort();
        const key = newKey('mp4');
        async function* failing(): AsyncGenerator<Buffer> {
          for (let sent = 0; sent < before; sent += 64 * 1024) yield randomBytes(64 * 1024);
          throw new Error('client went away');
        }
        await expect(storage.put(key, Readable.from(failing()))).rejects.toThrow(/client went away/);
        expect(await storage.stat(key)).toBeUndefined();
        expect((await s.leftovers()).sort(), `after failing at ${before} bytes`).toEqual(existing);
      }
    });

    it('leaves nothing behind when the caller aborts (before and during the upload)', async () => {
      const existing = (await s.leftovers()).sort();

      const already = new AbortController();
      already.abort();
      const key1 = newKey('mp4');
      await expect(storage.put(key1, Readable.from([randomBytes(1000)]), { signal: already.signal })).rejects.toMatchObject({ name: 'AbortError' });
      expect(await storage.stat(key1)).toBeUndefined();

      const controller = new AbortController();
      const key2 = newKey('mp4');
      async function* slow(): AsyncGenerator<Buffer> {
        for (let sent = 0; ; sent += MiB) {
          if (sent === 10 * MiB) controller.abort(); // a part has been sent by now (S3)
          yield randomBytes(MiB);
          await new Promise((r) => setTimeout(r, 5));
        }
      }
      await expect(storage.put(key2, Readable.from(slow()), { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
      expect(await storage.stat(key2)).toBeUndefined();
      expect((await s.leftovers()).sort()).toEqual(existing);
    });

    it('gives a file-backed Blob with the same bytes and the given type, repeatedly', async () => {
      const bytes = randomBytes(200_000);
      const key = newKey('webp');
      await storage.put(key, Readable.from([bytes]));
      const blob = await storage.blob(key, 'image/webp');
      expect(blob.type).toBe('image/webp');
      expect(blob.size).toBe(bytes.length);
      const again = await storage.blob(key, 'image/webp');
      // the first Blob is still readable after the second was handed out
      expect(sha(Buffer.from(await blob.arrayBuffer()))).toBe(sha(bytes));
      expect(sha(Buffer.from(await again.arrayBuffer()))).toBe(sha(bytes));
      expect(sha(Buffer.from(await blob.slice(1000, 2000).arrayBuffer()))).toBe(sha(bytes.subarray(1000, 2000)));
      await storage.delete(key);
    });

    it('removes a partial upload left by a crash only when its last activity is older than the cutoff', async () => {
      const existing = (await s.leftovers()).sort();
      const done = newKey('png');
      await storage.put(done, Readable.from([randomBytes(5000)]));
      const key = newKey('mp4');
      const crashedAt = new Date(Date.now() - 2 * 3600_000); // local: the temp file's mtime; S3 dates its own
      const started = Date.now();
      await crashMidPut(storage, key, crashedAt);
      const name = key.split('/').pop()!;
      const partialLeft = async () => (await s.leftovers()).filter((l) => l.includes(name));
      expect(await partialLeft()).toHaveLength(1);

      // a cutoff before the partial's last activity spares it
      const lastActivity = Math.min(crashedAt.getTime(), started);
      expect(await storage.sweepPartial(new Date(lastActivity - 60_000))).toBe(0);
      expect(await partialLeft()).toHaveLength(1);

      // a cutoff after it removes it, and nothing else
      expect(await storage.sweepPartial(new Date(Date.now() + 60_000))).toBe(1);
      expect(await partialLeft()).toEqual([]);
      expect(await storage.stat(key)).toBeUndefined();
      expect(await storage.stat(done)).toEqual({ size: 5000 });
      expect(await storage.sweepPartial(new Date(Date.now() + 60_000))).toBe(0);
      await storage.delete(done);
      expect((await s.leftovers()).sort()).toEqual(existing);
    });

    it('spares an upload in progress when the cutoff is before its last write', async () => {
      const key = newKey('mp4');
      let midway!: () => void;
      const reachedMidway = new Promise<void>((r) => (midway = r));
      let resume!: () => void;
      const resumed = new Promise<void>((r) => (resume = r));
      async function* paused(): AsyncGenerator<Buffer> {
        yield randomBytes(9 * MiB); // past one 8 MiB part (S3: the multipart upload is open)
        midway();
        await resumed;
        yield randomBytes(MiB);
      }
      const putting = storage.put(key, Readable.from(paused()));
      await reachedMidway;
      // let the first part reach the backend (S3) / the temp file (local)
      const inProgress = async () => (await s.leftovers()).filter((l) => l.includes(key.split('/').pop()!)).length;
      for (let i = 0; i < 500 && (await inProgress()) === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await inProgress()).toBe(1);
      expect(await storage.sweepPartial(new Date(Date.now() - 3600_000))).toBe(0);
      resume();
      expect(await putting).toEqual({ size: 10 * MiB });
      expect(await storage.stat(key)).toEqual({ size: 10 * MiB });
      await storage.delete(key);
    });

    it('answers keys of another shape as absent and refuses to store under them', async () => {
      for (const key of ['../../etc/passwd', '2026/01/x.png', '2026/01/' + 'a'.repeat(32) + '.exe', '']) {
        expect(await storage.stat(key)).toBeUndefined();
        expect(await storage.open(key)).toBeUndefined();
        await expect(storage.delete(key)).resolves.toBeUndefined();
        await expect(storage.put(key, Readable.from([Buffer.from('x')]))).rejects.toThrow(/invalid media key/);
      }
    });
  });
}
