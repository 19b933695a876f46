import { deflateSync, inflateSync } from 'node:zlib';

/**
 * A minimal PDF writer for LinkedIn's "images as carousel" posts: one page per picture, each
 * page the picture's pixel size. JPEG pictures are embedded as they are (DCTDecode); PNG
 * pictures without transparency keep their compressed data (Flate with the PNG predictors), and
 * those with an alpha channel are decoded once to split the alpha into a soft mask. Other
 * formats (GIF, interlaced or 16-bit transparent PNG) are refused with `UnsupportedImageError`.
 */
export class UnsupportedImageError extends Error {}

interface PdfImage {
  width: number;
  height: number;
  /** the image XObject dictionary entries besides Type, Subtype, Width, Height, Length */
  dict: string;
  data: Buffer;
  smask?: { dict: string; data: Buffer };
}

const u16 = (b: Buffer, i: number) => b.readUInt16BE(i);

function jpegImage(b: Buffer): PdfImage {
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) break;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i += 1;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const length = u16(b, i + 2);
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      const height = u16(b, i + 5);
      const width = u16(b, i + 7);
      const components = b[i + 9]!;
      const space = components === 1 ? '/DeviceGray' : components === 4 ? '/DeviceCMYK /Decode [1 0 1 0 1 0 1 0]' : '/DeviceRGB';
      return { width, height, dict: `/ColorSpace ${space} /BitsPerComponent 8 /Filter /DCTDecode`, data: b };
    }
    i += 2 + length;
  }
  throw new UnsupportedImageError('This JPEG has no frame header');
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Reverses the PNG row filters: raw samples, `stride` bytes a row. */
function unfilter(data: Buffer, stride: number, height: number, bpp: number): Buffer {
  const out = Buffer.alloc(stride * height);
  let p = 0;
  for (let y = 0; y < height; y++) {
    const type = data[p++];
    const row = y * stride;
    for (let x = 0; x < stride; x++) {
      const raw = data[p++] ?? 0;
      const a = x >= bpp ? out[row + x - bpp]! : 0;
      const b = y > 0 ? out[row - stride + x]! : 0;
      const c = x >= bpp && y > 0 ? out[row - stride + x - bpp]! : 0;
      const pred = type === 1 ? a : type === 2 ? b : type === 3 ? (a + b) >> 1 : type === 4 ? paeth(a, b, c) : 0;
      out[row + x] = (raw + pred) & 0xff;
    }
  }
  return out;
}

function pngImage(b: Buffer): PdfImage {
  let i = 8;
  let ihdr: Buffer | undefined;
  let palette: Buffer | undefined;
  const idat: Buffer[] = [];
  while (i + 8 <= b.length) {
    const length = b.readUInt32BE(i);
    const type = b.toString('latin1', i + 4, i + 8);
    const data = b.subarray(i + 8, i + 8 + length);
    if (type === 'IHDR') ihdr = data;
    else if (type === 'PLTE') palette = data;
    else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    i += 12 + length;
  }
  if (!ihdr || idat.length === 0) throw new UnsupportedImageError('This PNG has no image data');
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  const depth = ihdr[8]!;
  const colorType = ihdr[9]!;
  if (ihdr[12] !== 0) throw new UnsupportedImageError('Interlaced PNG pictures cannot go into a carousel');
  const compressed = Buffer.concat(idat);
  const decodeParms = (colors: number) => `/DecodeParms << /Predictor 15 /Colors ${colors} /BitsPerComponent ${depth} /Columns ${width} >>`;
  switch (colorType) {
    case 0:
      return { width, height, dict: `/ColorSpace /DeviceGray /BitsPerComponent ${depth} /Filter /FlateDecode ${decodeParms(1)}`, data: compressed };
    case 2:
      return { width, height, dict: `/ColorSpace /DeviceRGB /BitsPerComponent ${depth} /Filter /FlateDecode ${decodeParms(3)}`, data: compressed };
    case 3: {
      if (!palette) throw new UnsupportedImageError('This PNG has no palette');
      const space = `[/Indexed /DeviceRGB ${palette.length / 3 - 1} <${palette.toString('hex')}>]`;
      return { width, height, dict: `/ColorSpace ${space} /BitsPerComponent ${depth} /Filter /FlateDecode ${decodeParms(1)}`, data: compressed };
    }
    case 4:
    case 6: {
      if (depth !== 8) throw new UnsupportedImageError('Only 8-bit transparent PNG pictures can go into a carousel');
      const channels = colorType === 6 ? 4 : 2;
      const pixels = unfilter(inflateSync(compressed), width * channels, height, channels);
      const colour = Buffer.alloc(width * height * (channels - 1));
      const alpha = Buffer.alloc(width * height);
      for (let px = 0, c = 0; px < width * height; px++) {
        for (let k = 0; k < channels - 1; k++) colour[c++] = pixels[px * channels + k]!;
        alpha[px] = pixels[px * channels + channels - 1]!;
      }
      return {
        width,
        height,
        dict: `/ColorSpace ${channels === 4 ? '/DeviceRGB' : '/DeviceGray'} /BitsPerComponent 8 /Filter /FlateDecode`,
        data: deflateSync(colour),
        smask: { dict: '/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode', data: deflateSync(alpha) },
      };
    }
    default:
      throw new UnsupportedImageError(`PNG colour type ${colorType} is not supported`);
  }
}

function imageOf(bytes: Buffer, mimeType: string): PdfImage {
  if (mimeType === 'image/jpeg' || (bytes[0] === 0xff && bytes[1] === 0xd8)) return jpegImage(bytes);
  if (mimeType === 'image/png' || bytes.subarray(1, 4).toString('latin1') === 'PNG') return pngImage(bytes);
  throw new UnsupportedImageError(`${mimeType} pictures cannot go into a carousel (JPEG and PNG only)`);
}

/** The largest page side PDF readers accept (200 inches). */
const MAX_SIDE = 14_400;

/** One PDF, a page per picture, in order. */
export function imagesToPdf(pictures: { bytes: Buffer; mimeType: string }[], title?: string): Buffer {
  const chunks: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const write = (part: string | Buffer) => {
    const buf = typeof part === 'string' ? Buffer.from(part, 'latin1') : part;
    chunks.push(buf);
    length += buf.length;
  };
  const object = (n: number, dict: string, stream?: Buffer) => {
    offsets[n] = length;
    if (!stream) return write(`${n} 0 obj\n${dict}\nendobj\n`);
    write(`${n} 0 obj\n<< ${dict} /Length ${stream.length} >>\nstream\n`);
    write(stream);
    write('\nendstream\nendobj\n');
  };

  write('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n');
  const images = pictures.map((p) => imageOf(p.bytes, p.mimeType));
  const pageIds: number[] = [];
  let next = 4;
  for (const img of images) {
    const imageId = next++;
    const smaskId = img.smask ? next++ : undefined;
    const contentId = next++;
    const pageId = next++;
    pageIds.push(pageId);
    const scale = Math.min(1, MAX_SIDE / Math.max(img.width, img.height));
    const w = Math.max(1, Math.round(img.width * scale));
    const h = Math.max(1, Math.round(img.height * scale));
    object(imageId, `/Type /XObject /Subtype /Image /Width ${img.width} /Height ${img.height} ${img.dict}${smaskId ? ` /SMask ${smaskId} 0 R` : ''}`, img.data);
    if (img.smask && smaskId) object(smaskId, `/Type /XObject /Subtype /Image /Width ${img.width} /Height ${img.height} ${img.smask.dict}`, img.smask.data);
    object(contentId, '', Buffer.from(`q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`, 'latin1'));
    object(pageId, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /XObject << /Im0 ${imageId} 0 R >> >> /Contents ${contentId} 0 R >>`);
  }
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pageIds.length} >>`);
  const safeTitle = (title ?? '').replace(/[\\()]/g, '\\$&').replace(/[^\x20-\x7e]/g, '?');
  object(3, `<< /Title (${safeTitle}) /Producer (Tidings) >>`);

  const xref = length;
  write(`xref\n0 ${next}\n0000000000 65535 f \n`);
  for (let n = 1; n < next; n++) write(`${String(offsets[n] ?? 0).padStart(10, '0')} 00000 n \n`);
  write(`trailer\n<< /Size ${next} /Root 1 0 R /Info 3 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(chunks);
}
