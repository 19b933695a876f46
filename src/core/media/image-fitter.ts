import type { PublishMedia } from '../../platforms/platform.js';
import { fitImage, type ImageTarget } from './image-fit.js';

export interface FittedMedia {
  /** the item as the platform will get it: the new type, size and dimensions */
  media: PublishMedia;
  blob: Blob;
}

/**
 * Re-encodes stored pictures for a platform's limits (see `image-fit.ts`), remembering the last
 * few results so a retry, or the same picture sent to several channels of one platform, is
 * encoded once. Pictures are at most MEDIA_MAX_IMAGE_BYTES, so they are encoded in memory.
 */
export function createImageFitter(deps: { open: (m: PublishMedia) => Promise<Blob>; cacheEntries?: number }) {
  const limit = deps.cacheEntries ?? 32;
  const cache = new Map<string, Promise<FittedMedia>>();

  async function compute(m: PublishMedia, target: ImageTarget): Promise<FittedMedia> {
    const input = Buffer.from(await (await deps.open(m)).arrayBuffer());
    const fitted = await fitImage(input, m, target);
    return {
      media: { ...m, mimeType: fitted.mimeType, size: fitted.data.length, width: fitted.width, height: fitted.height },
      blob: new Blob([fitted.data], { type: fitted.mimeType }),
    };
  }

  return {
    fit(m: PublishMedia, target: ImageTarget): Promise<FittedMedia> {
      const key = `${m.id}:${m.size}:${JSON.stringify(target)}`;
      let entry = cache.get(key);
      if (entry) {
        cache.delete(key); // most recently used goes last
      } else {
        entry = compute(m, target);
        entry.catch(() => cache.delete(key));
      }
      cache.set(key, entry);
      while (cache.size > limit) cache.delete(cache.keys().next().value!);
      return entry;
    },
  };
}

export type ImageFitter = ReturnType<typeof createImageFitter>;
