import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalStorage } from './local-storage.js';
import { canServeAs, createRenditions, parseRenditionKey, RenditionError, renditionFormatFor, renditionKey } from './renditions.js';
import { isMediaKey, type MediaStorage } from './storage.js';

const KEY = '2026/05/0123456789abcdef0123456789abcdef.png';

describe('rendition formats and keys', () => {
  it('hands a platform the first of JPEG, WebP, PNG it takes, only when it does not take the stored type', () => {
    expect(renditionFormatFor('image/png', ['image/jpeg'])).toBe('image/jpeg');
    expect(renditionFormatFor('image/jpeg', ['image/jpeg'])).toBeUndefined();
    expect(renditionFormatFor('image/png', ['image/jpeg', 'image/webp'])).toBe('image/jpeg');
    expect(renditionFormatFor('image/avif', ['image/webp', 'image/png'])).toBe('image/webp');
    expect(renditionFormatFor('image/webp', ['image/jpeg', 'image/png'])).toBe('image/jpeg');
    // an animated GIF is never flattened into a still picture; video never converted
    expect(renditionFormatFor('image/gif', ['image/jpeg'])).toBeUndefined();
    expect(renditionFormatFor('video/mp4', ['image/jpeg'])).toBeUndefined();
    expect(canServeAs('image/gif', ['image/jpeg'])).toBe(false);
    expect(canServeAs('image/png', ['image/jpeg'])).toBe(true);
  });

  it('keys a rendition as its source key plus the extension, a storage key of its own', () => {
    const k = renditionKey(KEY, 'image/jpeg');
    expect(k).toBe(`${KEY}.jpg`);
    expect(isMediaKey(k)).toBe(true);
    expect(parseRenditionKey(k)).toEqual({ sourceKey: KEY, format: 'image/jpeg' });
    expect(parseRenditionKey(KEY)).toBeUndefined();
    expect(parseRenditionKey(`${KEY}.jpg.jpg`)).toBeUndefined();
    expect(parseRenditionKey(`${KEY}.gif`)).toBeUndefined();
    expect(parseRenditionKey(`../${KEY}.jpg`)).toBeUndefined();
  });
});

describe('createRenditions', () => {
  let dir: string;
  let storage: MediaStorage;
  let puts: string[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tidings-renditions-'));
    const local = createLocalStorage(dir);
    puts = [];
    storage = { ...local, put: (key, stream, opts) => (puts.push(key), local.put(key, stream, opts)) };
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const read = async (key: string) => {
    const opened = await storage.open(key);
    const chunks: Buffer[] = [];
    for await (const c of opened!.stream) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };

  it('renders a transparent PNG as a JPEG on white, orientation applied, once', async () => {
    // 30×20, left half opaque red, right half fully transparent; EXIF orientation 6 (rotate 90° clockwise)
    const raw = Buffer.alloc(30 * 20 * 4);
    for (let y = 0; y < 20; y++) for (let x = 0; x < 15; x++) raw.set([255, 0, 0, 255], (y * 30 + x) * 4);
    const png = await sharp(raw, { raw: { width: 30, height: 20, channels: 4 } }).png().withMetadata({ orientation: 6 }).toBuffer();
    await storage.put(KEY, Readable.from([png]));
    const renditions = createRenditions({ storage });

    const [a, b] = await Promise.all([renditions.ensure(KEY, 'image/jpeg'), renditions.ensure(KEY, 'image/jpeg')]);
    expect([a, b]).toEqual([`${KEY}.jpg`, `${KEY}.jpg`]);
    const jpeg = await read(a);
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const meta = await sharp(jpeg).metadata();
    expect([meta.format, meta.width, meta.height, meta.orientation ?? 1]).toEqual(['jpeg', 20, 30, 1]);
    // the transparent half (now the bottom, after the rotation) is white, the opaque half red
    const { data } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
    const px = (x: number, y: number) => [...data.subarray((y * 20 + x) * 3, (y * 20 + x) * 3 + 3)];
    expect(px(10, 25).every((c) => c > 245)).toBe(true);
    expect(px(10, 5)[0]).toBeGreaterThan(200);
    expect(px(10, 5)[1]).toBeLessThan(60);

    // stored once: a later request reads what is stored
    await renditions.ensure(KEY, 'image/jpeg');
    expect(puts.filter((k) => k === a)).toHaveLength(1);

    await renditions.deleteAll(KEY);
    expect(await storage.stat(a)).toBeUndefined();
    expect(await storage.stat(KEY)).toBeDefined();
  });

  it('a file that is not a readable picture has no rendition, and nothing is left stored', async () => {
    const bad = '2026/05/fedcba9876543210fedcba9876543210.png';
    await storage.put(bad, Readable.from([Buffer.from('\x89PNG\r\n\x1a\nnot really a picture')]));
    const renditions = createRenditions({ storage });
    await expect(renditions.ensure(bad, 'image/jpeg')).rejects.toBeInstanceOf(RenditionError);
    expect(await storage.stat(renditionKey(bad, 'image/jpeg'))).toBeUndefined();
    await expect(renditions.ensure('2026/05/00000000000000000000000000000000.png', 'image/jpeg')).rejects.toThrow(/missing/);
  });
});
