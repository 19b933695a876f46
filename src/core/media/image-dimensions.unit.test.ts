import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { dimensionsOf, readImageDimensions } from './image-dimensions.js';
import type { RangeReader } from './storage.js';

function readerOf(bytes: Buffer): RangeReader & { reads: number[] } {
  const reads: number[] = [];
  return {
    size: bytes.length,
    reads,
    read(start, end) {
      reads.push(end - start + 1);
      return Promise.resolve(bytes.subarray(start, end + 1));
    },
  };
}

describe('image dimensions', () => {
  it('reads them from the head when it holds the header, without touching storage', async () => {
    const png = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#000' } }).png().toBuffer();
    const stored = readerOf(png);
    expect(await readImageDimensions(png.subarray(0, 100), stored)).toEqual({ width: 30, height: 20 });
    expect(stored.reads).toEqual([]);
  });

  it('reads further when an EXIF block pushes the JPEG frame header past the head', async () => {
    const jpeg = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#000' } })
      .withExif({ IFD0: { ImageDescription: 'x'.repeat(20_000) } })
      .jpeg()
      .toBuffer();
    expect(dimensionsOf(jpeg.subarray(0, 4100))).toBeUndefined();
    const stored = readerOf(jpeg);
    expect(await readImageDimensions(jpeg.subarray(0, 4100), stored)).toEqual({ width: 300, height: 200 });
    expect(stored.reads).toEqual([jpeg.length]); // smaller than the 1 MiB prefix: the whole file, once
  });

  it('swaps them for EXIF orientations 5–8 (display size)', async () => {
    const base = sharp({ create: { width: 300, height: 200, channels: 3, background: '#000' } });
    expect(dimensionsOf(await base.clone().withMetadata({ orientation: 6 }).jpeg().toBuffer())).toEqual({ width: 200, height: 300 });
    expect(dimensionsOf(await base.clone().withMetadata({ orientation: 3 }).jpeg().toBuffer())).toEqual({ width: 300, height: 200 });
  });

  it('is undefined for bytes with no readable header', async () => {
    const junk = Buffer.from('\xff\xd8\xff' + 'z'.repeat(5000), 'latin1');
    expect(await readImageDimensions(junk.subarray(0, 100), readerOf(junk))).toBeUndefined();
  });
});
