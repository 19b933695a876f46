import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import sharp, { type Sharp } from 'sharp';
import { MEDIA_TYPES } from '../../lib/media-types.js';
import { isMediaKey, SOURCE_KEY_RE, type MediaStorage } from './storage.js';

/**
 * Renditions: a library picture served in another format, for platforms that fetch pictures
 * from their public URL themselves (`pulled` media rules) and take fewer formats than a post may
 * attach (Instagram takes JPEG only, TikTok photos JPEG or WebP). Nothing re-encoded in memory
 * can reach such a platform, so the service serves the converted file at a URL of its own:
 * `${PUBLIC_URL}/media/<source key>.<ext>` (the rendition key is the source key plus the
 * rendition's extension, so it is stable, unguessable like its source, and needs no table).
 * The first request renders it (sharp: EXIF orientation applied, transparency flattened onto
 * white for JPEG, same dimensions) and stores it next to its source, so every later fetch is a
 * plain read of storage (local or S3); deleting the source deletes its renditions.
 */

/** The formats a rendition can be written in, with the extension its key ends with; JPEG first (taken everywhere, smallest for photos). */
export const RENDITION_FORMATS = {
  'image/jpeg': MEDIA_TYPES['image/jpeg'].ext,
  'image/webp': MEDIA_TYPES['image/webp'].ext,
  'image/png': MEDIA_TYPES['image/png'].ext,
} as const;

export type RenditionFormat = keyof typeof RENDITION_FORMATS;

/** Still-picture formats a rendition can be made from (GIFs keep their animation only as GIF; video never). */
const RENDERABLE_SOURCES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/tiff']);

/** JPEG quality of renditions: high, since the platform re-encodes the picture once more. */
const JPEG_QUALITY = 90;

/**
 * The format a platform that pulls pictures and takes only `accepted` must be handed a picture of
 * type `mimeType` in: undefined when it takes the picture as stored, or when no rendition can be
 * made of it (then it goes as stored and validation has already refused what the platform does not
 * take). The first of JPEG, WebP, PNG the platform takes.
 */
export function renditionFormatFor(mimeType: string, accepted: readonly string[]): RenditionFormat | undefined {
  if (accepted.includes(mimeType) || !RENDERABLE_SOURCES.has(mimeType)) return undefined;
  return (Object.keys(RENDITION_FORMATS) as RenditionFormat[]).find((f) => accepted.includes(f));
}

/** true when a picture of type `mimeType` can be handed to a platform taking `accepted`, as stored or as a rendition. */
export function canServeAs(mimeType: string, accepted: readonly string[]): boolean {
  return accepted.includes(mimeType) || renditionFormatFor(mimeType, accepted) !== undefined;
}

/** The storage key of `sourceKey`'s rendition in `format`. */
export function renditionKey(sourceKey: string, format: RenditionFormat): string {
  return `${sourceKey}.${RENDITION_FORMATS[format]}`;
}

/** Every rendition key a source may have (to delete them with it). */
export function renditionKeys(sourceKey: string): string[] {
  return (Object.keys(RENDITION_FORMATS) as RenditionFormat[]).map((f) => renditionKey(sourceKey, f));
}

/** The source key and format of a rendition key; undefined when `key` is not one. */
export function parseRenditionKey(key: string): { sourceKey: string; format: RenditionFormat } | undefined {
  const dot = key.lastIndexOf('.');
  const sourceKey = key.slice(0, dot);
  if (dot < 0 || !isMediaKey(key) || !SOURCE_KEY_RE.test(sourceKey)) return undefined;
  const ext = key.slice(dot + 1);
  const format = (Object.keys(RENDITION_FORMATS) as RenditionFormat[]).find((f) => RENDITION_FORMATS[f] === ext);
  return format && { sourceKey, format };
}

/** Re-encodes a picture stream in `format`, same dimensions, orientation applied, metadata dropped. */
export function renderer(format: RenditionFormat): Sharp {
  const base = sharp().autoOrient();
  switch (format) {
    case 'image/jpeg':
      return base.flatten({ background: '#ffffff' }).jpeg({ quality: JPEG_QUALITY, mozjpeg: true });
    case 'image/webp':
      return base.webp({ quality: JPEG_QUALITY });
    default:
      return base.png({ compressionLevel: 9 });
  }
}

export class RenditionError extends Error {
  override name = 'RenditionError';
}

/**
 * Makes renditions on demand and keeps them in storage. `ensure` renders once: a rendition already
 * stored is used as it is, and concurrent requests for the same one in this process share one
 * render (two processes may both render; the second write replaces the first with the same picture).
 */
export function createRenditions(deps: { storage: MediaStorage }) {
  const { storage } = deps;
  const inflight = new Map<string, Promise<void>>();

  async function render(sourceKey: string, key: string, format: RenditionFormat): Promise<void> {
    const source = await storage.open(sourceKey);
    if (!source) throw new RenditionError(`the stored picture ${sourceKey} is missing`);
    const out = new PassThrough();
    const encoder = renderer(format);
    // A failed read or write (storage down) stops the encoder; a failed decode (a file sharp cannot read)
    // fails the write, which leaves nothing behind. Whichever fails first is the cause, and only
    // a failed decode is a RenditionError.
    let cause: { decode: unknown } | { storage: unknown } | undefined;
    source.stream.once('error', (e: unknown) => {
      cause ??= { storage: e };
    });
    encoder.once('error', (e: unknown) => {
      cause ??= { decode: e };
    });
    const writing = storage.put(key, out).catch((e: unknown) => {
      cause ??= { storage: e };
      out.destroy(e instanceof Error ? e : new Error(String(e)));
    });
    await pipeline(source.stream, encoder, out).catch((e: unknown) => {
      cause ??= { decode: e };
    });
    await writing;
    if (cause && 'storage' in cause) throw cause.storage;
    if (cause) {
      const e = cause.decode;
      throw new RenditionError(`the picture could not be converted to ${format}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  return {
    /** Stores the rendition of `sourceKey` in `format` unless it is stored already; answers its key. */
    async ensure(sourceKey: string, format: RenditionFormat): Promise<string> {
      const key = renditionKey(sourceKey, format);
      if (await storage.stat(key)) return key;
      let running = inflight.get(key);
      if (!running) {
        running = render(sourceKey, key, format).finally(() => inflight.delete(key));
        inflight.set(key, running);
      }
      await running;
      return key;
    },

    /** Deletes every rendition of `sourceKey` (missing ones are no error). */
    async deleteAll(sourceKey: string): Promise<void> {
      await Promise.all(renditionKeys(sourceKey).map((k) => storage.delete(k)));
    },
  };
}

export type Renditions = ReturnType<typeof createRenditions>;
