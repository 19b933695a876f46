import { MiB, VIDEO_TYPES } from '../common/schemas.js';
import { defineMetadata, mediaRules } from '../common/define-metadata.js';

/**
 * Threads (Meta's Threads API, graph.threads.net). Threads fetches every picture and video itself
 * from the media's public URL, so only the types and sizes Threads takes are accepted: a stored
 * WebP could not be re-encoded on the way (see `validate` in index.ts).
 */
export const threadsMetadata = defineMetadata({
  identifier: 'threads',
  displayName: 'Threads',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://developers.facebook.com/apps/',
    app: 'a Meta app with the Threads API',
  },
  oauth: {
    authorizeUrl: 'https://threads.net/oauth/authorize',
    tokenUrl: 'https://graph.threads.net/oauth/access_token',
    // threads_read_replies: the account's replies are read back to recognise one already published.
    scopes: ['threads_basic', 'threads_content_publish', 'threads_manage_replies', 'threads_read_replies', 'threads_manage_insights'],
    scopeSeparator: ',',
    pkce: false,
    // No refresh token: the 60-day long-lived token itself is renewed with th_refresh_token.
    refresh: true,
    // it renews only while valid: the token keeper renews idle channels (expiresAt = renew-at)
    renewWhileValid: true,
  },
  // Threads counts graphemes but an emoji as its UTF-8 bytes; graphemes are the lower bound the
  // generic check applies, the adapter's `validate` applies Threads' own count.
  text: { maxLength: 500, counting: 'graphemes' },
  // A carousel holds 2–20 items, pictures and videos together. Threads pulls pictures from their
  // URL and takes JPEG and PNG: a WebP picture is handed to it as its JPEG rendition.
  media: mediaRules({
    image: { maxCount: 20, mimeTypes: ['image/jpeg', 'image/png', 'image/webp'], platformTypes: ['image/jpeg', 'image/png'], maxBytes: 8 * MiB, pulled: true },
    video: { maxCount: 20, mimeTypes: VIDEO_TYPES, maxBytes: 1024 * MiB, maxDurationSeconds: 5 * 60 },
    mixed: true,
    onThreadItems: true,
  }),
  thread: { supported: true, kind: 'reply' },
  asyncProcessing: true,
  concurrency: { perPlatform: 5 },
  rules: 'Threads posts are limited to 500 characters, an emoji counting as its UTF-8 bytes, and 5 links; several pictures or videos (up to 20) make a carousel.',
  analytics: { channel: true, post: true },
});
