import { dubShortener } from './dub/dub.shortener.js';
import { kuttShortener } from './kutt/kutt.shortener.js';
import type { Shortener } from './provider.js';
import { shortioShortener } from './shortio/shortio.shortener.js';

export { ShortenerError, type Shortener, type ShortenedLink, type ShortenerSettings } from './provider.js';

/** The outside shorteners by provider (the built-in one is `links.service.ts`): a missing one is a compile error. */
export const SHORTENERS: Record<'dub' | 'shortio' | 'kutt', Shortener> = {
  dub: dubShortener,
  shortio: shortioShortener,
  kutt: kuttShortener,
};
