import { z } from 'zod';
import { MiB, requiredString, HttpUrl, NoToolDataSchema } from '../common/schemas.js';
import { defineMetadata, mediaRules } from '../common/define-metadata.js';

/** Pinterest pin settings (reference PinterestSettingsDto). */
export const PinterestSettingsSchema = z.object({
  board: requiredString('Board is required').describe('board must be an id'),
  title: z.string().max(100).optional(),
  link: HttpUrl.optional(),
  dominant_color: z.string().optional(),
});

export const pinterestMetadata = defineMetadata({
  identifier: 'pinterest',
  displayName: 'Pinterest',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://developers.pinterest.com/apps/',
    app: 'a Pinterest app',
  },
  oauth: {
    authorizeUrl: 'https://www.pinterest.com/oauth/',
    tokenUrl: 'https://api.pinterest.com/v5/oauth/token',
    scopes: ['boards:read', 'boards:write', 'pins:read', 'pins:write', 'user_accounts:read'],
    scopeSeparator: ',',
    pkce: false,
    refresh: true,
  },
  text: { maxLength: 500, counting: 'characters' },
  // One image, a 2–5 image carousel, or one video with its cover image.
  media: mediaRules({
    minItems: 1,
    image: {
      maxCount: 5,
      mimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/bmp', 'image/tiff'],
      // JPEG and PNG go as base64 and GIF by URL; the others are re-encoded (to JPEG) at publish time.
      platformTypes: ['image/jpeg', 'image/png', 'image/gif'],
      maxBytes: 20 * MiB,
    },
    video: {
      maxCount: 1,
      mimeTypes: ['video/mp4', 'video/quicktime', 'video/x-m4v'],
      maxBytes: 2048 * MiB,
      maxDurationSeconds: 15 * 60,
    },
    mixed: true,
  }),
  asyncProcessing: true,
  concurrency: { perPlatform: 3 },
  settings: PinterestSettingsSchema,
  tools: [{ methodName: 'boards', description: 'List of boards', dataSchema: NoToolDataSchema }],
  rules:
    'Pinterest needs at least one attachment and takes at most 5: one picture, a carousel of pictures of the same size, or one video followed by its cover picture.',
  analytics: { channel: true, post: true },
});
