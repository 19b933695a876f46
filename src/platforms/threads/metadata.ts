import { MiB, VIDEO_TYPES } from '../common/schemas.js';
import type { PlatformMetadata } from '../platform.js';

export const threadsMetadata: PlatformMetadata = {
  identifier: 'threads',
  displayName: 'Threads',
  authKind: 'oauth2',
  oauth: {
    authorizeUrl: 'https://threads.net/oauth/authorize',
    tokenUrl: 'https://graph.threads.net/oauth/access_token',
    scopes: ['threads_basic', 'threads_content_publish', 'threads_manage_replies', 'threads_manage_insights'],
    scopeSeparator: ',',
    pkce: false,
    // The 60-day long-lived token is renewed with th_refresh_token.
    refresh: true,
  },
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 500, counting: 'characters' },
  // A carousel holds 2–20 items, pictures and videos together.
  media: {
    minItems: 0,
    maxItems: 20,
    image: { maxCount: 20, mimeTypes: ['image/jpeg', 'image/png'], maxBytes: 8 * MiB },
    video: { maxCount: 20, mimeTypes: VIDEO_TYPES, maxBytes: 1024 * MiB, maxDurationSeconds: 5 * 60 },
    mixed: true,
    onThreadItems: true,
  },
  thread: { supported: true, kind: 'reply' },
  asyncProcessing: true,
  concurrency: { perPlatform: 5, perChannel: 1 },
  settings: null,
  tools: [],
  rules: '',
  analytics: { channel: true, post: true },
};
