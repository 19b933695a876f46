import { z } from 'zod';
import { IMAGE_TYPES, VIDEO_TYPES } from '../common/schemas.js';
import { HttpUrl } from '../common/schemas-b.js';
import type { PlatformMetadata } from '../platform.js';

/** Tumblr post settings (reference TumblrDto); every field is optional. */
export const TumblrSettingsSchema = z.object({
  title: z.string().min(1).max(4096).optional(),
  link: HttpUrl.optional(),
  sourceUrl: HttpUrl.optional(),
  tags: z.string().max(4096).optional().describe('comma-separated tags'),
});

export const tumblrMetadata: PlatformMetadata = {
  identifier: 'tumblr',
  displayName: 'Tumblr',
  authKind: 'oauth2',
  oauth: {
    authorizeUrl: 'https://www.tumblr.com/oauth2/authorize',
    tokenUrl: 'https://api.tumblr.com/v2/oauth2/token',
    scopes: ['basic', 'write', 'offline_access'],
    scopeSeparator: ' ',
    pkce: false,
    refresh: true,
  },
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 32_768, counting: 'characters' },
  media: {
    minItems: 0,
    maxItems: 30,
    image: { maxCount: 30, mimeTypes: IMAGE_TYPES },
    video: { maxCount: 1, mimeTypes: VIDEO_TYPES },
    mixed: true,
    onThreadItems: false,
  },
  thread: { supported: false },
  asyncProcessing: false,
  concurrency: { perPlatform: 3, perChannel: 1 },
  settings: TumblrSettingsSchema,
  tools: [],
  rules: '',
  analytics: { channel: false, post: false },
};
