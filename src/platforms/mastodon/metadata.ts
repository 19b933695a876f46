import { IMAGE_TYPES, MiB, VIDEO_TYPES } from '../common/schemas.js';
import type { PlatformMetadata } from '../platform.js';

export const mastodonMetadata: PlatformMetadata = {
  identifier: 'mastodon',
  displayName: 'Mastodon',
  authKind: 'instance-oauth2',
  // Paths on the user's instance; the app is registered there first (POST /api/v1/apps).
  oauth: {
    authorizeUrl: '/oauth/authorize',
    tokenUrl: '/oauth/token',
    // `profile` needs Mastodon ≥ 4.3; older servers need `read:accounts` instead.
    scopes: ['read', 'write'],
    scopeSeparator: ' ',
    // Only Mastodon ≥ 4.3 supports PKCE.
    pkce: true,
    // Tokens do not expire.
    refresh: false,
  },
  instanceBased: true,
  editor: 'normal',
  // The default; instances may configure more (GET /api/v2/instance).
  text: { maxLength: 500, counting: 'mastodon' },
  media: {
    minItems: 0,
    maxItems: 4,
    image: { maxCount: 4, mimeTypes: IMAGE_TYPES, maxBytes: 16 * MiB },
    video: { maxCount: 1, mimeTypes: VIDEO_TYPES, maxBytes: 99 * MiB },
    mixed: false,
    onThreadItems: true,
  },
  thread: { supported: true, kind: 'reply' },
  // Media may answer 202 and be processed before the status can use it.
  asyncProcessing: true,
  // 300 requests per 5 minutes per account, 30 media uploads per 30 minutes.
  concurrency: { perPlatform: 5, perChannel: 1 },
  settings: null,
  tools: [],
  rules: '',
  analytics: { channel: true, post: true },
};
