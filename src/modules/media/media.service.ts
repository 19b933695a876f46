import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import { isMediaKey, type ByteRange, type MediaStorage } from '../../media/storage.js';
import type { MediaRepository, MediaRow } from './media.repository.js';
import { ALLOWED_MEDIA, MEDIA_PAGE_SIZE, type MediaItem } from './media.schemas.js';

/** Bytes kept in memory to sniff the type and read image dimensions; the rest streams through. */
const HEAD_BYTES = 4100;

export interface UploadInput {
  stream: AsyncIterable<Buffer>;
  filename: string;
  /** true when the multipart parser cut the file short */
  truncated?: () => boolean;
  signal?: AbortSignal;
}

const fileField = (message: string) => new AppError('VALIDATION_FAILED', `file: ${message}`, { fields: [{ path: 'file', message }] });

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
  };
}

/** The media library: uploads streamed to storage, listing, deletion, and serving the files. */
export function createMediaService(deps: {
  media: MediaRepository;
  storage: MediaStorage;
  clock: Clock;
  publicUrl: string;
  limits: { maxImageBytes: number; maxVideoBytes: number };
}) {
  const { media, storage, clock, publicUrl, limits } = deps;
  return {
    async upload(organizationId: string, input: UploadInput): Promise<MediaItem> {
      const source = input.stream[Symbol.asyncIterator]();
      // A broken or aborted request body (the multipart parser's errors) is the client's fault.
      const iterator = {
        next: () =>
          source.next().catch((err: unknown) => {
            throw err instanceof AppError ? err : new AppError('BAD_REQUEST', `file: the upload ended before the file was complete (${err instanceof Error ? err.message : String(err)})`);
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
      const allowed = sniffed ? ALLOWED_MEDIA[sniffed.mime] : undefined;
      if (!sniffed || !allowed) {
        throw fileField(`unsupported file type${sniffed ? ` (${sniffed.mime})` : ''}; allowed: ${Object.keys(ALLOWED_MEDIA).join(', ')}`);
      }
      const cap = allowed.type === 'image' ? limits.maxImageBytes : limits.maxVideoBytes;
      const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', `file: ${allowed.type}s may be at most ${cap} bytes`);
      if (head.length > cap) throw tooLarge();

      let width: number | null = null;
      let height: number | null = null;
      if (allowed.type === 'image') {
        try {
          const dims = imageSize(head);
          width = dims.width;
          height = dims.height;
        } catch {
          // dimensions beyond the first bytes: unknown
        }
      }

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
      const { size } = await storage.put(key, Readable.from(body()), { signal: input.signal });
      try {
        const name = key.split('/').pop()!;
        const row = await media.insertMedia({
          organizationId,
          name,
          originalName: input.filename || null,
          path: `${publicUrl}/media/${key}`,
          storageKey: key,
          type: allowed.type,
          mimeType: sniffed.mime,
          size,
          width,
          height,
          duration: null,
          createdAt: now,
        });
        return toMediaItem(row);
      } catch (e) {
        await storage.delete(key).catch(() => undefined);
        throw e;
      }
    },

    /** Newest first, pages of 100. */
    async list(organizationId: string, page: number) {
      const limit = MEDIA_PAGE_SIZE;
      const { rows, total } = await media.listPage(organizationId, page * limit, limit);
      return { media: rows.map(toMediaItem), total, page, limit, hasMore: (page + 1) * limit < total };
    },

    /** Soft-deletes the row and removes the file; refused while a draft or queued post uses it. */
    async remove(organizationId: string, id: string): Promise<MediaItem> {
      const row = isUuid(id) ? await media.findMedia(organizationId, id) : undefined;
      if (!row) throw notFound('Media');
      const using = await media.pendingPostsUsing(organizationId, id);
      if (using.length > 0) {
        throw new AppError('CONFLICT', `Media is used by draft or queued posts: ${using.map((p) => p.id).join(', ')}`);
      }
      const deleted = await media.softDelete(organizationId, id, new Date(clock.now()));
      if (!deleted) throw notFound('Media');
      await storage.delete(deleted.storageKey);
      return toMediaItem(deleted);
    },

    /** A stored file for `GET /media/*`: undefined when the key is not one of ours. */
    async openFile(key: string, range?: (size: number) => ByteRange | 'unsatisfiable' | undefined) {
      if (!isMediaKey(key)) return undefined;
      const stat = await storage.stat(key);
      if (!stat) return undefined;
      const row = await media.findByStorageKey(key);
      if (!row) return undefined;
      const contentType = row.mimeType;
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
