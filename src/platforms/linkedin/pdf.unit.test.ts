import { deflateSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { imagesToPdf, UnsupportedImageError } from './pdf.js';

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

function paeth(a: number, b: number, c: number) {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** An RGBA PNG whose rows use filters 0–4 in turn (forward filtering done here). */
function filteredPng(width: number, height: number, pixels: Buffer): Buffer {
  const bpp = 4;
  const stride = width * bpp;
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const type = y % 5;
    const row = Buffer.alloc(stride + 1);
    row[0] = type;
    for (let x = 0; x < stride; x++) {
      const cur = pixels[y * stride + x]!;
      const a = x >= bpp ? pixels[y * stride + x - bpp]! : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const c = x >= bpp && y > 0 ? pixels[(y - 1) * stride + x - bpp]! : 0;
      const pred = type === 1 ? a : type === 2 ? b : type === 3 ? (a + b) >> 1 : type === 4 ? paeth(a, b, c) : 0;
      row[x + 1] = (cur - pred) & 0xff;
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}

function streams(pdf: Buffer): { dict: string; data: Buffer }[] {
  const s = pdf.toString('latin1');
  const out: { dict: string; data: Buffer }[] = [];
  const re = /<< ([^\n]*?) \/Length (\d+) >>\nstream\n/g;
  for (let m = re.exec(s); m; m = re.exec(s)) out.push({ dict: m[1]!, data: pdf.subarray(m.index + m[0].length, m.index + m[0].length + Number(m[2])) });
  return out;
}

describe('carousel PDF', () => {
  it('decodes every PNG row filter and splits the alpha channel into a soft mask', () => {
    const width = 3;
    const height = 5;
    const pixels = Buffer.from(Array.from({ length: width * height * 4 }, (_, i) => (i * 37 + (i % 7) * 11) & 0xff));
    const pdf = imagesToPdf([{ bytes: filteredPng(width, height, pixels), mimeType: 'image/png' }], 'T');
    const [colour, alpha] = streams(pdf);
    expect(colour!.dict).toContain('/Width 3 /Height 5 /ColorSpace /DeviceRGB');
    const rgb = Buffer.alloc(width * height * 3);
    const a = Buffer.alloc(width * height);
    for (let p = 0; p < width * height; p++) {
      pixels.copy(rgb, p * 3, p * 4, p * 4 + 3);
      a[p] = pixels[p * 4 + 3]!;
    }
    expect(inflateSync(colour!.data)).toEqual(rgb);
    expect(inflateSync(alpha!.data)).toEqual(a);
    expect(pdf.toString('latin1')).toMatch(/\/Type \/Pages \/Kids \[\d+ 0 R\] \/Count 1/);
  });

  it('embeds a JPEG as it is, sized from its frame header, with a valid cross-reference table', () => {
    const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x20, 0x00, 0x40, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x4a, 0x46]), sof, Buffer.from([0xff, 0xd9])]);
    const pdf = imagesToPdf([{ bytes: jpeg, mimeType: 'image/jpeg' }, { bytes: jpeg, mimeType: 'image/jpeg' }]);
    const [first] = streams(pdf);
    expect(first!.dict).toContain('/Width 64 /Height 32 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode');
    expect(first!.data).toEqual(jpeg);
    const s = pdf.toString('latin1');
    const xref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(s)![1]);
    const offsets = s.slice(xref).split('\n').filter((l) => / 00000 n $/.test(l)).map((l) => Number(l.slice(0, 10)));
    offsets.forEach((off, i) => expect(s.slice(off, off + 12)).toMatch(new RegExp(`^${i + 1} 0 obj`)));
    expect((s.match(/\/Type \/Page(?![s\w])/g) ?? []).length).toBe(2);
  });

  it('refuses GIF pictures', () => {
    expect(() => imagesToPdf([{ bytes: Buffer.from('GIF89a'), mimeType: 'image/gif' }])).toThrow(UnsupportedImageError);
  });
});
