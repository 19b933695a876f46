import { z } from 'zod';
import { IMAGE_TYPES, VIDEO_TYPES, HttpUrl } from '../common/schemas.js';
import { accountTool, defineMetadata, mediaRules } from '../common/define-metadata.js';

/** What Tumblr does with a new post: publish it now, add it to the blog's queue, keep it as a draft, or publish it privately. */
export const TUMBLR_STATES = ['published', 'queue', 'draft', 'private'] as const;

/**
 * Tumblr post settings (reference TumblrDto); every field is optional. `state` is not in the
 * reference DTO: it is Tumblr's own field name (the issue asks for published/queued/draft).
 */
export const TumblrSettingsSchema = z.object({
  title: z.string().min(1).max(4096).optional(),
  link: HttpUrl.optional(),
  sourceUrl: HttpUrl.optional(),
  tags: z.string().max(4096).optional().describe('comma-separated tags'),
  state: z.enum(TUMBLR_STATES).optional().describe('published (default), queue, draft or private'),
});

export const tumblrMetadata = defineMetadata({
  identifier: 'tumblr',
  displayName: 'Tumblr',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://www.tumblr.com/oauth/apps',
    app: 'a Tumblr application (OAuth 2)',
  },
  oauth: {
    authorizeUrl: 'https://www.tumblr.com/oauth2/authorize',
    tokenUrl: 'https://api.tumblr.com/v2/oauth2/token',
    scopes: ['basic', 'write', 'offline_access'],
    scopeSeparator: ' ',
    pkce: false,
    refresh: true,
  },
  text: { maxLength: 32_768, counting: 'characters' },
  media: mediaRules({ image: { maxCount: 30, mimeTypes: IMAGE_TYPES }, video: { maxCount: 1, mimeTypes: VIDEO_TYPES }, mixed: true }),
  concurrency: { perPlatform: 3 },
  settings: TumblrSettingsSchema,
  tools: [
    accountTool('blogs', 'blog', "The Tumblr blogs of the connected account (the channel posts to the one marked current; switch with PUT /integrations/{id}/account and the blog's id)"),
  ],
  analytics: { post: true },
});
