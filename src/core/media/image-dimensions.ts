import { imageSize } from 'image-size';
import type { RangeReader } from './storage.js';

export interface ImageDimensions {
  width: number;
  height: number;
}

/** Display dimensions from an image's header: EXIF orientations 5–8 (a quarter turn) swap them. */
export function dimensionsOf(bytes: Uint8Array): ImageDimensions | undefined {
  try {
    const d = imageSize(bytes);
    if (!d.width || !d.height) return undefined;
    return (d.orientation ?? 1) >= 5 ? { width: d.height, height: d.width } : { width: d.width, height: d.height };
  } catch {
    return undefined; // the header runs past these bytes, or is not readable
  }
}

/** Phone JPEGs carry EXIF blocks of tens of KiB (a thumbnail among them) before the frame header. */
const PREFIX_STEPS = [1024 * 1024];

/**
 * The display dimensions of a stored image, reading as little as needed: `head` (the bytes already
 * in hand), then a 1 MiB prefix, then the whole file (images are capped at MEDIA_MAX_IMAGE_BYTES).
 * Undefined when no header can be read.
 */
export async function readImageDimensions(head: Buffer, stored: RangeReader): Promise<ImageDimensions | undefined> {
  const first = dimensionsOf(head);
  if (first || head.length >= stored.size) return first;
  for (const length of [...PREFIX_STEPS.filter((s) => s < stored.size), stored.size]) {
    const found = dimensionsOf(await stored.read(0, length - 1));
    if (found) return found;
  }
  return undefined;
}
