/**
 * The media types Tidings stores, with the extension of their stored name: one table for upload
 * sniffing, storage keys, the content type a bucket serves, and the names uploads get on platforms.
 */
export const MEDIA_TYPES = {
  'image/jpeg': { type: 'image', ext: 'jpg' },
  'image/png': { type: 'image', ext: 'png' },
  'image/gif': { type: 'image', ext: 'gif' },
  'image/webp': { type: 'image', ext: 'webp' },
  // No platform takes these two: they are converted when a post publishes (core/media/image-fit.ts).
  'image/avif': { type: 'image', ext: 'avif' },
  'image/tiff': { type: 'image', ext: 'tif' },
  'video/mp4': { type: 'video', ext: 'mp4' },
  'video/quicktime': { type: 'video', ext: 'mov' },
  // Sound for generated videos (background music); posts cannot carry it.
  'audio/mpeg': { type: 'audio', ext: 'mp3' },
  'audio/x-m4a': { type: 'audio', ext: 'm4a' },
  'audio/wav': { type: 'audio', ext: 'wav' },
  'audio/ogg': { type: 'audio', ext: 'ogg' },
  'audio/flac': { type: 'audio', ext: 'flac' },
} as const satisfies Record<string, { type: MediaKind; ext: string }>;

export type MediaKind = 'image' | 'video' | 'audio';

export type MediaMimeType = keyof typeof MEDIA_TYPES;

export function mediaTypeOf(mimeType: string): (typeof MEDIA_TYPES)[MediaMimeType] | undefined {
  return Object.hasOwn(MEDIA_TYPES, mimeType) ? MEDIA_TYPES[mimeType as MediaMimeType] : undefined;
}

/** The MIME type of a stored extension (`jpg` → `image/jpeg`). */
export function mimeTypeOfExtension(ext: string): string | undefined {
  return Object.entries(MEDIA_TYPES).find(([, t]) => t.ext === ext)?.[0];
}
