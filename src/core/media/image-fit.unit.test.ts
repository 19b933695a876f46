import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { canFit, fitImage, ImageFitError, needsFitting, targetSize, type ImageTarget } from './image-fit.js';

/** A picture of random noise: it does not compress, so its encoded size is large. */
async function noise(width: number, height: number, format: 'png' | 'jpeg' | 'webp', channels: 3 | 4 = 3): Promise<Buffer> {
  const raw = sharp(randomBytes(width * height * channels), { raw: { width, height, channels } });
  return format === 'png' ? raw.png().toBuffer() : format === 'jpeg' ? raw.jpeg({ quality: 100 }).toBuffer() : raw.webp({ quality: 100 }).toBuffer();
}

const facts = (data: Buffer, mimeType: string, width: number, height: number) => ({ mimeType, size: data.length, width, height });

describe('needsFitting / canFit / targetSize', () => {
  const bluesky: ImageTarget = { types: ['image/jpeg', 'image/png', 'image/webp'], maxBytes: 1_000_000 };
  const instagram: ImageTarget = { types: ['image/jpeg'], maxBytes: 8 * 1024 * 1024, minWidth: 320, maxWidth: 1440 };

  it('flags type, size and each dimension limit', () => {
    expect(needsFitting({ mimeType: 'image/png', size: 1_000_000, width: 10, height: 10 }, bluesky)).toBe(false);
    expect(needsFitting({ mimeType: 'image/png', size: 1_000_001, width: 10, height: 10 }, bluesky)).toBe(true);
    expect(needsFitting({ mimeType: 'image/png', size: 10, width: 1000, height: 1000 }, instagram)).toBe(true);
    expect(needsFitting({ mimeType: 'image/jpeg', size: 10, width: 1440, height: 1000 }, instagram)).toBe(false);
    expect(needsFitting({ mimeType: 'image/jpeg', size: 10, width: 1441, height: 1000 }, instagram)).toBe(true);
    expect(needsFitting({ mimeType: 'image/jpeg', size: 10, width: 319, height: 300 }, instagram)).toBe(true);
    expect(needsFitting({ mimeType: 'image/jpeg', size: 10, width: 6000, height: 6000 }, { types: ['image/jpeg'], maxPixels: 36_000_000 })).toBe(false);
    expect(needsFitting({ mimeType: 'image/jpeg', size: 10, width: 6001, height: 6000 }, { types: ['image/jpeg'], maxPixels: 36_000_000 })).toBe(true);
    expect(needsFitting({ mimeType: 'image/jpeg', size: 10, width: null, height: null }, instagram)).toBe(false);
  });

  it('fits still JPEG/PNG/WebP only, into a format it can write', () => {
    expect(canFit({ mimeType: 'image/webp', size: 1 }, instagram)).toBe(true);
    expect(canFit({ mimeType: 'image/gif', size: 1 }, instagram)).toBe(false);
    expect(canFit({ mimeType: 'image/png', size: 1 }, { types: ['image/gif'] })).toBe(false);
  });

  it('scales down to the tightest limit, keeps the aspect ratio, scales up only to minWidth', () => {
    expect(targetSize(3000, 2000, instagram)).toEqual({ width: 1440, height: 960 });
    expect(targetSize(200, 100, instagram)).toEqual({ width: 320, height: 160 });
    expect(targetSize(800, 600, instagram)).toEqual({ width: 800, height: 600 });
    expect(targetSize(4000, 3000, { types: [], maxWidth: 4000, maxHeight: 1500 })).toEqual({ width: 2000, height: 1500 });
    const p = targetSize(8000, 6000, { types: [], maxPixels: 12_000_000 });
    expect(p.width * p.height).toBeLessThanOrEqual(12_000_000);
    expect(p.width / p.height).toBeCloseTo(4 / 3, 2);
  });
});

describe('fitImage (sharp)', () => {
  it('brings a 3 MB PNG under Bluesky’s 1,000,000 bytes, as a JPEG of the same aspect ratio', async () => {
    const png = await noise(1200, 900, 'png');
    expect(png.length).toBeGreaterThan(3_000_000);
    const out = await fitImage(png, facts(png, 'image/png', 1200, 900), { types: ['image/jpeg', 'image/png', 'image/webp'], maxBytes: 1_000_000 });
    expect(out.data.length).toBeLessThanOrEqual(1_000_000);
    expect(out.mimeType).toBe('image/jpeg');
    const meta = await sharp(out.data).metadata();
    expect(meta.format).toBe('jpeg');
    expect(out.width / out.height).toBeCloseTo(1200 / 900, 1);
    expect([meta.width, meta.height]).toEqual([out.width, out.height]);
  });

  it('keeps transparency: a heavy transparent PNG becomes WebP where the platform takes it', async () => {
    const png = await noise(800, 600, 'png', 4);
    const out = await fitImage(png, facts(png, 'image/png', 800, 600), { types: ['image/jpeg', 'image/png', 'image/webp'], maxBytes: 1_000_000 });
    const meta = await sharp(out.data).metadata();
    expect([out.mimeType, meta.format, meta.hasAlpha]).toEqual(['image/webp', 'webp', true]);
    expect(out.data.length).toBeLessThanOrEqual(1_000_000);
  });

  it('keeps a PNG a PNG when only its dimensions break the limits', async () => {
    const png = await noise(600, 300, 'png');
    const out = await fitImage(png, facts(png, 'image/png', 600, 300), { types: ['image/png', 'image/jpeg'], maxWidth: 300 });
    expect([out.mimeType, out.width, out.height]).toEqual(['image/png', 300, 150]);
  });

  it('keeps JPEG as JPEG and lowers quality before shrinking', async () => {
    const jpeg = await noise(1000, 800, 'jpeg');
    const out = await fitImage(jpeg, facts(jpeg, 'image/jpeg', 1000, 800), { types: ['image/jpeg', 'image/png'], maxBytes: Math.floor(jpeg.length / 2) });
    expect(out.mimeType).toBe('image/jpeg');
    expect(out.data.length).toBeLessThanOrEqual(jpeg.length / 2);
    expect((await sharp(out.data).metadata()).format).toBe('jpeg');
  });

  it('converts for Instagram: a transparent PNG becomes an opaque JPEG 1440 px wide', async () => {
    const png = await noise(2000, 1600, 'png', 4);
    const out = await fitImage(png, facts(png, 'image/png', 2000, 1600), { types: ['image/jpeg'], maxBytes: 8 * 1024 * 1024, minWidth: 320, maxWidth: 1440 });
    const meta = await sharp(out.data).metadata();
    expect(meta.format).toBe('jpeg');
    expect(meta.hasAlpha).toBe(false);
    expect([meta.width, meta.height]).toEqual([1440, 1152]);
    expect(out.mimeType).toBe('image/jpeg');
  });

  it('scales a narrow WebP up to Instagram’s minimum width', async () => {
    const webp = await noise(160, 200, 'webp');
    const out = await fitImage(webp, facts(webp, 'image/webp', 160, 200), { types: ['image/jpeg'], minWidth: 320, maxWidth: 1440 });
    expect([out.width, out.height]).toEqual([320, 400]);
  });

  it('applies the EXIF orientation (a picture stored on its side comes out upright) and strips metadata', async () => {
    const sideways = await sharp(await noise(400, 200, 'jpeg')).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const out = await fitImage(sideways, facts(sideways, 'image/jpeg', 400, 200), { types: ['image/png'] });
    const meta = await sharp(out.data).metadata();
    expect([meta.width, meta.height]).toEqual([200, 400]);
    expect(meta.orientation).toBeUndefined();
  });

  it('says so when a picture cannot be fitted', async () => {
    const png = await noise(300, 300, 'png');
    await expect(fitImage(png, facts(png, 'image/png', 300, 300), { types: ['image/jpeg'], maxBytes: 50 })).rejects.toBeInstanceOf(ImageFitError);
    await expect(fitImage(png, facts(png, 'image/gif', 300, 300), { types: ['image/jpeg'] })).rejects.toThrow(/cannot be converted/);
    await expect(fitImage(Buffer.from('not a picture'), { mimeType: 'image/png', size: 13 }, { types: ['image/jpeg'] })).rejects.toThrow();
  });
});
