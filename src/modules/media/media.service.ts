import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { AppError, fieldError, notFound } from '../../errors.js';
import { PAGE_SIZE, pageInfo } from '../../lib/pagination.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import { fileNameOf, RemoteFetchError, type RemoteFetcher } from '../../core/media/remote-fetch.js';
import { readImageDimensions } from '../../core/media/image-dimensions.js';
import { MEDIA_TYPES, mediaTypeOf } from '../../lib/media-types.js';
import { createRenditions, parseRenditionKey, RenditionError, renditionFormatFor } from '../../core/media/renditions.js';
import { isMediaKey, storageReader, type ByteRange, type MediaStorage } from '../../core/media/storage.js';
import { ContainerError, readVideoMetadata, type VideoMetadata } from '../../core/media/video-metadata.js';
import type { MediaRepository, MediaRow } from './media.repository.js';
import type { MediaItem } from './media.schemas.js';
import type { Tx } from '../../db/client.js';

/** Bytes kept in memory to sniff the type and read image dimensions; the rest streams through. */
const HEAD_BYTES = 4100;

export interface UploadInput {
  stream: AsyncIterable<Buffer>;
  filename: string;
  /** true when the multipart parser cut the file short */
  truncated?: () => boolean;
  signal?: AbortSignal;
}

/** What `store` reads: the bytes and how to name the request field they came from in errors. */
interface StoreInput {
  stream: AsyncIterable<Buffer>;
  filename: string | null;
  /** the request field errors name: `file` (multipart) or `url` (fetched) */
  field: 'file' | 'url';
  /** the size the source announced, if any: refused as soon as the type's cap is known */
  declaredSize?: number;
  /** true when the source cut the file short at the largest cap (multipart parser) */
  truncated?: () => boolean;
  /**
   * Runs in the transaction that inserts the row (a generated video marks its job done there): if
   * it throws, no row is left and the stored file is removed.
   */
  onInsert?: (tx: Tx, row: MediaRow) => Promise<void>;
  /** turns a failure of reading the source into the client-facing error */
  readError: (err: unknown) => AppError;
  signal?: AbortSignal;
}

/** A failed remote fetch as the error of the `url` field (413 for sizes, 400 otherwise). */
function urlError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof RemoteFetchError) {
    if (err.kind === 'too_large') return new AppError('PAYLOAD_TOO_LARGE', `url: ${err.message}`);
    return fieldError('url', err.message);
  }
  return fieldError('url', `the download failed (${err instanceof Error ? err.message : String(err)})`);
}

/** The container's metadata of a stored video; `ContainerError` becomes a 400 on the source field. */
async function readStoredVideo(storage: MediaStorage, key: string, size: number, fileField: (message: string) => AppError): Promise<VideoMetadata> {
  try {
    return await readVideoMetadata(storage, key, size);
  } catch (e) {
    if (e instanceof ContainerError) throw fileField(`not a playable MP4/MOV: ${e.message}`);
    throw e;
  }
}

export function toMediaItem(row: MediaRow): MediaItem {
  return {
    id: row.id,
    name: row.name,
    originalName: row.originalName,
    path: row.path,
    thumbnail: row.thumbnail,
    alt: row.alt,
    type: row.type,
    mimeType: row.mimeType,
    size: row.size,
    width: row.width,
    height: row.height,
    duration: row.duration,
    codecs: row.codecs,
  };
}

/** The media library: uploads streamed to storage, listing, deletion, and serving the files. */
export function createMediaService(deps: {
  media: MediaRepository;
  storage: MediaStorage;
  clock: Clock;
  publicUrl: string;
  limits: { maxImageBytes: number; maxVideoBytes: number; maxAudioBytes: number };
  /** opens `upload-from-url` sources (SSRF-guarded, bounded in size and time) */
  remote: RemoteFetcher;
}) {
  const renditions = createRenditions({ storage: deps.storage });
  const { media, storage, clock, publicUrl, limits, remote } = deps;

  /**
   * The one upload pipeline, whatever the source: sniff the type from the first bytes, apply the
   * type's cap while streaming to storage, read image dimensions, insert the row. On any failure
   * nothing is left behind (storage removes its temp file; the stored file goes if the insert fails).
   */
  async function store(organizationId: string, input: StoreInput): Promise<MediaItem> {
    const fileField = (message: string) => fieldError(input.field, message);
    const source = input.stream[Symbol.asyncIterator]();
    // A source that breaks while being read is the client's (or the remote's) fault.
    const iterator = {
      next: () =>
        source.next().catch((err: unknown) => {
          throw input.readError(err);
        }),
    };
    const chunks: Buffer[] = [];
    let headLength = 0;
    let ended = false;
    while (headLength < HEAD_BYTES) {
      const next = await iterator.next();
      if (next.done) {
        ended = true;
        break;
      }
      chunks.push(next.value);
      headLength += next.value.length;
    }
    const head = Buffer.concat(chunks);
    if (head.length === 0) throw fileField('the file is empty');
    const sniffed = await fileTypeFromBuffer(head);
    const allowed = sniffed ? mediaTypeOf(sniffed.mime) : undefined;
    if (!sniffed || !allowed) {
      throw fileField(`unsupported file type${sniffed ? ` (${sniffed.mime})` : ''}; allowed: ${Object.keys(MEDIA_TYPES).join(', ')}`);
    }
    const cap = allowed.type === 'image' ? limits.maxImageBytes : allowed.type === 'audio' ? limits.maxAudioBytes : limits.maxVideoBytes;
    const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', `${input.field}: ${allowed.type === 'audio' ? 'audio files' : `${allowed.type}s`} may be at most ${cap} bytes`);
    if (head.length > cap || (input.declaredSize !== undefined && input.declaredSize > cap)) throw tooLarge();

    async function* body(): AsyncGenerator<Buffer> {
      let size = head.length;
      yield head;
      if (ended) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        size += next.value.length;
        if (size > cap) throw tooLarge();
        yield next.value;
      }
      if (input.truncated?.()) throw tooLarge();
    }

    const now = new Date(clock.now());
    const key = storage.newKey(allowed.ext, now);
    // Recorded before a byte is written: if this process dies before the row is inserted (which
    // claims the key), the storage janitor removes the object.
    await media.markUnclaimed(key, now);
    try {
      const { size } = await storage.put(key, Readable.from(body()), { signal: input.signal });
      // Videos: duration, display size and codecs from the stored container (ranged reads of the
      // box headers, `ftyp` and `moov` only); one that cannot be parsed is refused and removed.
      const video = allowed.type === 'video' ? await readStoredVideo(storage, key, size, fileField) : undefined;
      // Images: display dimensions from the header, which may sit past the first bytes (EXIF).
      const image = allowed.type === 'image' ? await readImageDimensions(head, storageReader(storage, key, size)) : undefined;
      const name = key.split('/').pop()!;
      const row = await media.insertMedia({
        organizationId,
        name,
        originalName: input.filename || null,
        path: storage.publicUrl(key) ?? `${publicUrl}/media/${key}`,
        storageKey: key,
        type: allowed.type,
        mimeType: sniffed.mime,
        size,
        width: (video ?? image)?.width ?? null,
        height: (video ?? image)?.height ?? null,
        duration: video?.duration ?? null,
        codecs: video?.codecs ?? null,
        createdAt: now,
      }, input.onInsert);
      return toMediaItem(row);
    } catch (e) {
      await storage.delete(key).catch(() => undefined);
      await media.forgetUnclaimed(key).catch(() => undefined);
      throw e;
    }
  }

  return {
    /**
     * A file this service made (a generated video) into the library through the same pipeline:
     * sniffed, capped, its container read. `onInsert` runs in the row's transaction.
     */
    async storeFile(organizationId: string, input: { path: string; filename: string; signal?: AbortSignal; onInsert?: (tx: Tx, row: MediaRow) => Promise<void> }): Promise<MediaItem> {
      return store(organizationId, {
        stream: createReadStream(input.path),
        filename: input.filename,
        field: 'file',
        signal: input.signal,
        onInsert: input.onInsert,
        readError: (err) => (err instanceof AppError ? err : new AppError('INTERNAL', `reading ${input.path} failed: ${err instanceof Error ? err.message : String(err)}`)),
      });
    },

    async upload(organizationId: string, input: UploadInput): Promise<MediaItem> {
      return store(organizationId, {
        stream: input.stream,
        filename: input.filename,
        field: 'file',
        truncated: input.truncated,
        signal: input.signal,
        // A broken or aborted request body (the multipart parser's errors) is the client's fault.
        readError: (err) =>
          err instanceof AppError ? err : new AppError('BAD_REQUEST', `file: the upload ended before the file was complete (${err instanceof Error ? err.message : String(err)})`),
      });
    },

    /**
     * `POST /upload-from-url`: fetches `url` (public http(s) only, redirects re-checked, bounded
     * size and time) into the same pipeline as `upload`. `signal` (the caller went away) stops the
     * download and leaves nothing behind.
     */
    async uploadFromUrl(organizationId: string, url: string, signal?: AbortSignal): Promise<MediaItem> {
      const file = await remote.open(url, { maxBytes: Math.max(limits.maxImageBytes, limits.maxVideoBytes, limits.maxAudioBytes), signal }).catch((err: unknown) => {
        throw urlError(err);
      });
      try {
        return await store(organizationId, {
          stream: file.body,
          filename: fileNameOf(file.url),
          field: 'url',
          declaredSize: file.contentLength,
          readError: urlError,
          signal,
        });
      } finally {
        // Whatever was not read (a refused type, a cap crossed) is dropped with its connection.
        file.cancel();
      }
    },

    /** Newest first, pages of 100. */
    async list(organizationId: string, page: number) {
      const { rows, total } = await media.listPage(organizationId, page * PAGE_SIZE, PAGE_SIZE);
      return { media: rows.map(toMediaItem), ...pageInfo(total, page) };
    },

    /** The posts that carry the item (thread items answer their first post's id as `postId`). */
    async uses(organizationId: string, id: string) {
      const row = isUuid(id) ? await media.findMedia(organizationId, id) : undefined;
      if (!row) throw notFound('Media');
      const rows = await media.postsUsing(organizationId, id);
      return {
        posts: rows.map((r) => ({
          postId: r.parentPostId ?? r.id,
          threadItem: r.parentPostId !== null,
          state: r.state,
          publishDate: r.publishDate.toISOString(),
          integration: r.integration,
        })),
        blocksDelete: rows.some((r) => r.state === 'QUEUE' || r.state === 'DRAFT'),
      };
    },

    /** Soft-deletes the row and removes the file; refused while a draft or queued post uses it. */
    async remove(organizationId: string, id: string): Promise<MediaItem> {
      const row = isUuid(id) ? await media.findMedia(organizationId, id) : undefined;
      if (!row) throw notFound('Media');
      const using = await media.pendingPostsUsing(organizationId, id);
      if (using.length > 0) {
        throw new AppError('CONFLICT', `Media is used by draft or queued posts: ${using.map((p) => p.id).join(', ')}`);
      }
      // The soft delete marks the key unclaimed in its transaction: the item is gone from the
      // library now; if removing the object fails (storage down) or the process dies first, the
      // storage janitor removes it later.
      const deleted = await media.softDelete(organizationId, id, new Date(clock.now()));
      if (!deleted) throw notFound('Media');
      // Renditions first: once the source is gone nothing renders them again, and while the key
      // stays unclaimed the janitor removes both.
      await renditions
        .deleteAll(deleted.storageKey)
        .then(() => storage.delete(deleted.storageKey))
        .then(() => media.forgetUnclaimed(deleted.storageKey))
        .catch(() => undefined);
      return toMediaItem(deleted);
    },

    /**
     * A stored file for `GET /media/*`: undefined when the key is not one of ours; a redirect to a
     * short-lived URL when the storage offers them (private S3 bucket: the bytes skip this process).
     */
    async openFile(key: string, range?: (size: number) => ByteRange | 'unsatisfiable' | undefined) {
      if (!isMediaKey(key)) return undefined;
      const rendition = parseRenditionKey(key);
      const row = await media.findByStorageKey(rendition?.sourceKey ?? key);
      if (!row) return undefined;
      if (rendition) {
        // Only pictures a rendition can be made of, and only in another format than their own.
        if (row.type !== 'image' || renditionFormatFor(row.mimeType, [rendition.format]) !== rendition.format) return undefined;
        try {
          await renditions.ensure(rendition.sourceKey, rendition.format);
        } catch (e) {
          // A stored file sharp cannot decode has no rendition: there is nothing at this URL.
          if (e instanceof RenditionError) throw new AppError('NOT_FOUND', `Media file not found: ${e.message}`);
          throw e;
        }
        // Deleted while it rendered: remove what was just stored.
        if (!(await media.findByStorageKey(rendition.sourceKey))) {
          await storage.delete(key).catch(() => undefined);
          return undefined;
        }
      }
      if (storage.signedUrl) return { redirect: await storage.signedUrl(key) };
      const stat = await storage.stat(key);
      if (!stat) return undefined;
      const contentType = rendition?.format ?? row.mimeType;
      const r = range?.(stat.size);
      if (r === 'unsatisfiable') return { contentType, size: stat.size, unsatisfiable: true as const };
      const opened = await storage.open(key, r);
      if (!opened) return undefined;
      return { contentType, size: stat.size, range: r, stream: opened.stream };
    },

    /** The bytes of a media item for the platform adapters (file-backed, never read whole). */
    async blob(m: { id: string }): Promise<Blob> {
      const row = isUuid(m.id) ? await media.findById(m.id) : undefined;
      if (!row) throw notFound('Media');
      return storage.blob(row.storageKey, row.mimeType);
    },
  };
}

export type MediaService = ReturnType<typeof createMediaService>;
