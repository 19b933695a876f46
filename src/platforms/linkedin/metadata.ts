import { z } from 'zod';
import { IMAGE_TYPES, MiB } from '../common/schemas.js';
import type { MediaRules, PlatformMetadata } from '../platform.js';

/**
 * LinkedIn post settings (reference LinkedinDto), shared with `linkedin-page`. With
 * `post_as_images_carousel` the pictures are sent as one PDF document titled `carousel_name`.
 */
export const LinkedinSettingsSchema = z.object({
  post_as_images_carousel: z.boolean().optional(),
  carousel_name: z.string().optional().describe('title of the carousel document'),
});

/** Media rules of a LinkedIn post (profile or page): up to 20 pictures or one video. */
export const LINKEDIN_MEDIA: MediaRules = {
  minItems: 0,
  maxItems: 20,
  image: { maxCount: 20, mimeTypes: IMAGE_TYPES, platformTypes: ['image/jpeg', 'image/png', 'image/gif'], maxBytes: 5 * MiB, maxPixels: 36_152_319 },
  video: { maxCount: 1, mimeTypes: ['video/mp4'], maxBytes: 500 * MiB, maxDurationSeconds: 30 * 60 },
  mixed: false,
  // Comments are text only.
  onThreadItems: false,
};

export const LINKEDIN_RULES =
  'A LinkedIn post can carry up to 20 pictures or one video, never both; a carousel needs at least two pictures and no video, and comments are text only.';

export const linkedinMetadata: PlatformMetadata = {
  identifier: 'linkedin',
  displayName: 'LinkedIn',
  authKind: 'oauth2',
  deploymentApp: {
    variables: ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET'],
    consoleUrl: 'https://www.linkedin.com/developers/apps',
    app: 'a LinkedIn app with the "Share on LinkedIn" and "Sign In with LinkedIn using OpenID Connect" products',
  },
  oauth: {
    authorizeUrl: 'https://www.linkedin.com/oauth/v2/authorization',
    tokenUrl: 'https://www.linkedin.com/oauth/v2/accessToken',
    scopes: ['openid', 'profile', 'w_member_social'],
    scopeSeparator: ' ',
    pkce: false,
    // Refresh tokens come only to apps approved for programmatic refresh; others reconnect every 60 days.
    refresh: true,
  },
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 3000, counting: 'characters' },
  media: LINKEDIN_MEDIA,
  thread: { supported: true, kind: 'comment' },
  // Videos are processed after upload (poll until AVAILABLE).
  asyncProcessing: true,
  // About 150 posts a day per member; daily limits reset at midnight UTC.
  concurrency: { perPlatform: 5, perChannel: 1 },
  settings: LinkedinSettingsSchema,
  tools: [],
  rules: LINKEDIN_RULES,
  analytics: { channel: false, post: false },
};
