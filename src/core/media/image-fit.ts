import sharp from 'sharp';
import type { MediaKindRule } from '../../platforms/platform.js';

/**
 * Publish-time image fitting: when a platform needs a smaller, narrower or differently encoded
 * picture than the one uploaded, the publisher re-encodes it (sharp) rather than failing the post.
 * Pictures in a format the platform does not take (AVIF, TIFF, WebP for Instagram…) are converted.
 * Animated GIFs are never re-encoded (they would lose their animation or grow); video never is.
 */

/** What a platform takes for pictures, as far as fitting is concerned. */
export interface ImageTarget {
  /** MIME types the platform itself accepts */
  types: readonly string[];
  maxBytes?: number;
  maxWidth?: number;
  maxHeight?: number;
  /** narrower pictures are scaled up to this width */
  minWidth?: number;
  /** most pixels (width × height) */
  maxPixels?: number;
  /** the platform fetches the stored file itself: nothing re-encoded here can reach it */
  pulled?: boolean;
}

/** The fitting target of a platform's image rule. */
export function imageTargetOf(rule: MediaKindRule): ImageTarget {
  const { maxBytes, maxWidth, maxHeight, minWidth, maxPixels, pulled } = rule;
  return { types: rule.platformTypes ?? rule.mimeTypes, maxBytes, maxWidth, maxHeight, minWidth, maxPixels, pulled };
}

export interface ImageFacts {
  mimeType: string;
  size: number;
  width?: number | null;
  height?: number | null;
}

export interface FittedImage {
  data: Buffer;
  mimeType: string;
  width: number;
  height: number;
}

/** Formats this module reads (AVIF and TIFF only ever as a source: no platform takes them) and writes. */
const READABLE = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/tiff']);
const WRITABLE = new Set(['image/jpeg', 'image/png', 'image/webp']);

/** Output preference: JPEG (smallest for photos, taken everywhere), then WebP, then PNG. */
const OUTPUT_ORDER = ['image/jpeg', 'image/webp', 'image/png'] as const;

/** true when the picture as stored breaks one of the target's limits. */
export function needsFitting(img: ImageFacts, t: ImageTarget): boolean {
  if (t.pulled) return false;
  if (!t.types.includes(img.mimeType)) return true;
  if (t.maxBytes !== undefined && img.size > t.maxBytes) return true;
  return breaksDimensions(img, t);
}

/** true when the picture's known dimensions are outside the target's limits. */
export function breaksDimensions(img: Pick<ImageFacts, 'width' | 'height'>, t: Omit<ImageTarget, 'types'>): boolean {
  const { width, height } = img;
  if (width == null || height == null) return false;
  if (t.maxWidth !== undefined && width > t.maxWidth) return true;
  if (t.maxHeight !== undefined && height > t.maxHeight) return true;
  if (t.minWidth !== undefined && width < t.minWidth) return true;
  if (t.maxPixels !== undefined && width * height > t.maxPixels) return true;
  return false;
}

/** true when {@link fitImage} can make the picture fit (a still JPEG/PNG/WebP/AVIF/TIFF, a target format it can write). */
export function canFit(img: ImageFacts, t: ImageTarget): boolean {
  return !t.pulled && READABLE.has(img.mimeType) && t.types.some((x) => WRITABLE.has(x));
}

/** The largest size (never enlarged except up to `minWidth`) that satisfies the target's dimensions. */
export function targetSize(width: number, height: number, t: ImageTarget): { width: number; height: number } {
  let scale = 1;
  if (t.maxWidth !== undefined) scale = Math.min(scale, t.maxWidth / width);
  if (t.maxHeight !== undefined) scale = Math.min(scale, t.maxHeight / height);
  if (t.maxPixels !== undefined) scale = Math.min(scale, Math.sqrt(t.maxPixels / (width * height)));
  if (t.minWidth !== undefined && width * scale < t.minWidth && scale >= 1) scale = t.minWidth / width;
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}

export class ImageFitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageFitError';
  }
}

const QUALITIES = [88, 80, 72, 64, 56, 48];
const MAX_SHRINKS = 6;

/**
 * Re-encodes `input` to fit `t`: orientation applied from EXIF, metadata stripped, scaled to the
 * dimension limits, written in the format `outputFormat` picks (JPEG flattens transparency on
 * white); then quality is stepped down, and the picture shrunk by a quarter at a time, until it is
 * under `maxBytes`.
 */
export async function fitImage(input: Buffer, img: ImageFacts, t: ImageTarget): Promise<FittedImage> {
  if (!canFit(img, t)) throw new ImageFitError(`a ${img.mimeType} picture cannot be converted to ${t.types.join(', ')}`);
  const meta = await sharp(input).metadata();
  // Dimensions after the EXIF orientation is applied.
  const { width, height } = meta.autoOrient;
  if (!width || !height) throw new ImageFitError('the picture has no readable dimensions');

  const format = outputFormat(img, t, meta.hasAlpha);
  let size = targetSize(width, height, t);
  for (let shrink = 0; shrink <= MAX_SHRINKS; shrink++) {
    const qualities = format === 'image/png' ? [0] : QUALITIES;
    for (const quality of qualities) {
      const data = await encode(input, size, format, quality);
      if (t.maxBytes === undefined || data.length <= t.maxBytes) return { data, mimeType: format, width: size.width, height: size.height };
    }
    size = { width: Math.max(1, Math.floor(size.width * 0.75)), height: Math.max(1, Math.floor(size.height * 0.75)) };
  }
  throw new ImageFitError(`the picture could not be made smaller than ${t.maxBytes} bytes`);
}

/**
 * The original format when the platform takes it and it can be made small enough by its own
 * means; a PNG that is too heavy becomes WebP when it has transparency to keep (and the platform
 * takes WebP), else JPEG. Otherwise the first format the platform takes of JPEG, WebP, PNG.
 */
function outputFormat(img: ImageFacts, t: ImageTarget, hasAlpha: boolean): string {
  const takes = (f: string) => t.types.includes(f);
  const tooHeavy = t.maxBytes !== undefined && img.size > t.maxBytes;
  if (takes(img.mimeType) && !(img.mimeType === 'image/png' && tooHeavy)) return img.mimeType;
  if (hasAlpha && takes('image/webp')) return 'image/webp';
  return OUTPUT_ORDER.find(takes)!;
}

async function encode(input: Buffer, size: { width: number; height: number }, format: string, quality: number): Promise<Buffer> {
  const pipeline = sharp(input).autoOrient().resize(size.width, size.height, { fit: 'fill' });
  switch (format) {
    case 'image/jpeg':
      return pipeline.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true }).toBuffer();
    case 'image/webp':
      return pipeline.webp({ quality }).toBuffer();
    default:
      return pipeline.png({ compressionLevel: 9, palette: false }).toBuffer();
  }
}
