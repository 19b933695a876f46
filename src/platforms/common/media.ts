import { mediaTypeOf } from '../../lib/media-types.js';
import type { PublishMedia } from '../platform.js';


/**
 * The file name an upload gives the platform: the stored name's stem with the extension of the
 * bytes actually sent. The type decides the extension, not the stored path: a picture re-encoded
 * at publish time (PNG → JPEG) must not arrive named `.png` (Mastodon, Reddit and others check).
 */
export function mediaFileName(m: Pick<PublishMedia, 'id' | 'path' | 'mimeType'>): string {
  const last = m.path.split(/[?#]/)[0]!.split('/').pop() ?? '';
  // A stored name (`<hex>.png`) keeps its stem; a path without an extension gives way to the id.
  const stem = /\.[a-z0-9]{2,5}$/i.test(last) ? last.replace(/\.[a-z0-9]{2,5}$/i, '') : m.id;
  return `${stem}.${mediaTypeOf(m.mimeType)?.ext ?? m.mimeType.split('/')[1] ?? 'bin'}`;
}
