import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { MEDIA_TYPES } from '../../lib/media-types.js';

/** A byte range, both ends inclusive (as in HTTP `Range: bytes=start-end`). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredObject {
  size: number;
}

/**
 * Where media files live. Keys are opaque to callers; both drivers use `<yyyy>/<mm>/<32 hex>.<ext>`
 * (`newMediaKey`). `put` streams: it never holds the whole file in memory, and leaves nothing behind
 * when the stream fails or the caller aborts.
 */
export interface MediaStorage {
  /** Stores `stream` under `key`; on any error nothing is left behind. */
  put(key: string, stream: Readable, opts?: { signal?: AbortSignal }): Promise<StoredObject>;
  /** The object's bytes (or one range of them); undefined when there is no such object. */
  open(key: string, range?: ByteRange): Promise<{ stream: Readable; size: number } | undefined>;
  stat(key: string): Promise<StoredObject | undefined>;
  /** Removes the object; a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** A file-backed Blob of the object (adapters upload it without reading it whole). */
  blob(key: string, type: string): Promise<Blob>;
  /** A fresh, unguessable key for a new object with extension `ext` at time `now`. */
  newKey(ext: string, now: Date): string;
  /**
   * The URL where clients fetch the object directly (a public bucket or CDN), stored as the media
   * item's `path` at upload. Undefined: Tidings serves it itself at `${PUBLIC_URL}/media/<key>`.
   */
  publicUrl(key: string): string | undefined;
  /**
   * A short-lived URL that reads the object without credentials (private buckets): `GET /media/<key>`
   * then redirects there instead of streaming the bytes through this process. Absent: streamed.
   */
  signedUrl?(key: string): Promise<{ url: string; expiresInSeconds: number }>;
  /**
   * Removes what a process killed in the middle of `put` left behind — local temp files, S3
   * multipart uploads never completed nor aborted — whose last activity was before `olderThan`;
   * answers how many were removed. An upload still in progress keeps writing, so it is spared as
   * long as `olderThan` leaves it time between writes.
   */
  sweepPartial(olderThan: Date): Promise<number>;
  /** Releases clients and timers (shutdown). */
  close?(): Promise<void>;
}

const EXTENSIONS = Object.values(MEDIA_TYPES).map((t) => t.ext).join('|');
/** Extensions of renditions (`core/media/renditions.ts`): JPEG, WebP, PNG. */
const RENDITION_EXTENSIONS = [MEDIA_TYPES['image/jpeg'].ext, MEDIA_TYPES['image/webp'].ext, MEDIA_TYPES['image/png'].ext].join('|');

/** The key of an uploaded file: `<yyyy>/<mm>/<32 hex>.<ext>`. */
export const SOURCE_KEY_RE = new RegExp(`^\\d{4}/\\d{2}/[0-9a-f]{32}\\.(${EXTENSIONS})$`);

/**
 * Only keys of this exact shape are ever accepted (no traversal, no other files): an uploaded
 * file's, or a rendition's, which is its source's key plus the rendition's extension.
 */
export const MEDIA_KEY_RE = new RegExp(`^\\d{4}/\\d{2}/[0-9a-f]{32}\\.(${EXTENSIONS})(\\.(${RENDITION_EXTENSIONS}))?$`);

export function isMediaKey(key: string): boolean {
  return MEDIA_KEY_RE.test(key);
}

/** `<yyyy>/<mm>/<random 32 hex>.<ext>` (UTC month of `now`): the key shape of every driver. */
export function newMediaKey(ext: string, now: Date): string {
  const yyyy = String(now.getUTCFullYear()).padStart(4, '0');
  const mm = String(now.getUTCMonth() + 1).padStart(2, '0');
  return `${yyyy}/${mm}/${randomBytes(16).toString('hex')}.${ext}`;
}

/** Random access to a file's bytes; `read` answers exactly `end - start + 1` bytes or throws. */
export interface RangeReader {
  size: number;
  /** bytes [start, end], both ends inclusive */
  read(start: number, end: number): Promise<Buffer>;
}

/** A stored object ended before the bytes a ranged read asked for. */
export class ShortReadError extends Error {
  override name = 'ShortReadError';
}

async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A `RangeReader` over a stored object of `size` bytes (each read is one ranged `open`). */
export function storageReader(storage: MediaStorage, key: string, size: number): RangeReader {
  return {
    size,
    async read(start, end) {
      const opened = await storage.open(key, { start, end });
      if (!opened) throw new Error(`media object ${key} disappeared while it was read`);
      const bytes = await readAll(opened.stream as AsyncIterable<Buffer>);
      if (bytes.length !== end - start + 1) throw new ShortReadError(`short read at offset ${start}: ${bytes.length} of ${end - start + 1} bytes`);
      return bytes;
    },
  };
}
