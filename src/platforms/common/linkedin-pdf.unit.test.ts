import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { imagesToPdf, UnsupportedImageError } from './linkedin-pdf.js';

// A 2×1 RGBA PNG with transparency and a minimal baseline JPEG frame of 64×32.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000020000000108060000007bc0ed1c0000000d4944415478da63f8cfc0f01f0005fe02fe1e2a6a8f0000000049454e44ae426082',
  'hex',
);
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x4a, 0x46]),
  Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x20, 0x00, 0x40, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]),
  Buffer.from([0xff, 0xd9]),
]);

describe('carousel PDF', () => {
  it('has one page per picture, each the picture’s size, and the title', async () => {
    const pdf = await imagesToPdf(
      [
        { bytes: JPEG, mimeType: 'image/jpeg' },
        { bytes: PNG, mimeType: 'image/png' },
      ],
      'Our carousel',
    );
    const doc = await PDFDocument.load(pdf);
    expect(doc.getPageCount()).toBe(2);
    expect(doc.getPage(0).getSize()).toEqual({ width: 64, height: 32 });
    expect(doc.getPage(1).getSize()).toEqual({ width: 2, height: 1 });
    expect(doc.getTitle()).toBe('Our carousel');
  });

  it('refuses GIF pictures and unreadable bytes', async () => {
    await expect(imagesToPdf([{ bytes: Buffer.from('GIF89a'), mimeType: 'image/gif' }])).rejects.toThrow(UnsupportedImageError);
    await expect(imagesToPdf([{ bytes: Buffer.from('not a png'), mimeType: 'image/png' }])).rejects.toThrow(/could not be read/);
  });
});
