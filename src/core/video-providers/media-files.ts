import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { media } from '../../db/schema/index.js';
import { mediaTypeOf } from '../../lib/media-types.js';
import type { MediaStorage } from '../media/storage.js';
import { VideoProviderError, type VideoMediaFile } from './provider.js';

type MediaRow = typeof media.$inferSelect;

/** Copies a stored media item into `workDir` (ffmpeg reads files; S3 objects have no local path). */
export async function copyMediaInto(storage: MediaStorage, row: MediaRow, workDir: string, signal?: AbortSignal): Promise<VideoMediaFile> {
  const opened = await storage.open(row.storageKey);
  if (!opened) throw new VideoProviderError(`the file of media item ${row.id} is missing from storage`, 'invalid_params');
  const path = join(workDir, `media-${row.id}.${mediaTypeOf(row.mimeType)?.ext ?? 'bin'}`);
  await pipeline(opened.stream, createWriteStream(path), { signal });
  return { id: row.id, type: row.type, mimeType: row.mimeType, path, url: row.path, width: row.width, height: row.height };
}
