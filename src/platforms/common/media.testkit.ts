import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

/** Media bytes the platform tests publish and compare (one copy of each builder, for every test kit). */

export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A 1×1 PNG: enough for a platform to accept and for the bytes to be compared. */
export const PNG_1X1 = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
  'hex',
);

/** A 1×1 JPEG, for platforms that take no PNG (the publisher hands them a JPEG rendition instead). */
export const JPEG_1X1 = Buffer.from(
  'ffd8ffdb004300100b0c0e0c0a100e0d0e1211101318281a181616183123251d283a333d3c3933383740485c4e404457453738506d51575f626768673e4d71797064785c656763ffdb0043011112121815182f1a1a2f634238426363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363ffc00011080001000103012200021101031101ffc4001500010100000000000000000000000000000005ffc40014100100000000000000000000000000000000ffc4001501010100000000000000000000000000000406ffc40014110100000000000000000000000000000000ffda000c03010002110311003f0088006aa7ffd9',
  'hex',
);

/** A valid PNG: its header (8-bit samples of `colourType`: 2 RGB, 6 RGBA) and the unfiltered scanlines `raw`. */
function encodePng(width: number, height: number, colourType: 2 | 6, raw: Buffer): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, colourType, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** A valid 1×1 RGBA PNG whose red channel is `n` (different bytes for each `n`). */
export function pixelPng(n: number): Buffer {
  return encodePng(1, 1, 6, Buffer.from([0, n & 0xff, 20, 30, 255]));
}

/** A valid RGB PNG of `width`×`height` whose colour depends on `seed` (different bytes for each seed). */
export function png(width: number, height: number, seed = 0): Buffer {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([(x + seed) & 255, (seed * 37) & 255, 128], 1 + x * 3);
  return encodePng(width, height, 2, Buffer.concat(Array.from({ length: height }, () => row)));
}
