import { z } from 'zod';
import { IMAGE_TYPES, MiB } from './schemas.js';
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

/** LinkedIn's OAuth endpoints (no PKCE), the same for a member and the pages they administer; each platform names its scopes. */
export const LINKEDIN_OAUTH = {
  authorizeUrl: 'https://www.linkedin.com/oauth/v2/authorization',
  tokenUrl: 'https://www.linkedin.com/oauth/v2/accessToken',
  scopeSeparator: ' ',
  pkce: false,
  // Refresh tokens come only to apps approved for programmatic refresh; others reconnect every 60 days.
  refresh: true,
} as const;

/** How a LinkedIn post is written and published, as a member or as a page. */
export const LINKEDIN_POSTING = {
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 3000, counting: 'characters' },
  media: LINKEDIN_MEDIA,
  thread: { supported: true, kind: 'comment' },
  // Videos are processed after upload (poll until AVAILABLE).
  asyncProcessing: true,
  // About 150 posts a day per member; daily limits reset at midnight UTC.
  concurrency: { perPlatform: 5, perChannel: 1 },
  rules: LINKEDIN_RULES,
} satisfies Partial<PlatformMetadata>;
