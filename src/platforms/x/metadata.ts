import { z } from 'zod';
import { IMAGE_TYPES, MediaRefSchema, MiB, VIDEO_TYPES } from '../common/schemas.js';
import { defineMetadata, mediaRules } from '../common/define-metadata.js';

const WHO_CAN_REPLY = ['everyone', 'following', 'mentionedUsers', 'subscribers', 'verified'] as const;

/** X post settings (reference XDto). `who_can_reply_post` is required unless the post is an article. */
export const XSettingsSchema = z
  .object({
    who_can_reply_post: z.enum(WHO_CAN_REPLY).optional(),
    community: z
      .string()
      .regex(/^(|https:\/\/x\.com\/i\/communities\/\d+)$/, 'Must be empty or https://x.com/i/communities/<id>')
      .optional(),
    post_type: z.enum(['post', 'article']).optional(),
    article_title: z.string().min(1).optional(),
    article_status: z.enum(['draft', 'published']).optional(),
    article_cover: MediaRefSchema.optional(),
    made_with_ai: z.boolean().optional(),
    paid_partnership: z.boolean().optional(),
  })
  .superRefine((s, ctx) => {
    if (s.post_type === 'article') {
      if (!s.article_title) ctx.addIssue({ code: 'custom', path: ['article_title'], message: 'Required for an article' });
      if (!s.article_status) ctx.addIssue({ code: 'custom', path: ['article_status'], message: 'Required for an article' });
    } else if (!s.who_can_reply_post) {
      ctx.addIssue({ code: 'custom', path: ['who_can_reply_post'], message: 'Required' });
    }
  });

export const xMetadata = defineMetadata({
  identifier: 'x',
  displayName: 'X',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://developer.x.com/en/portal/dashboard',
    app: 'an app with OAuth 2.0 user authentication of type "Web App" (confidential client), read and write permissions',
  },
  oauth: {
    authorizeUrl: 'https://x.com/i/oauth2/authorize',
    tokenUrl: 'https://api.x.com/2/oauth2/token',
    scopes: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
    pkce: true,
    refresh: true,
  },
  editor: 'html',
  text: { maxLength: 280, counting: 'twitter-weighted' },
  media: mediaRules({
    image: { maxCount: 4, mimeTypes: IMAGE_TYPES, maxBytes: 5 * MiB },
    video: { maxCount: 1, mimeTypes: VIDEO_TYPES, maxBytes: 512 * MiB, maxDurationSeconds: 140 },
    onThreadItems: true,
  }),
  thread: { supported: true, kind: 'reply' },
  asyncProcessing: true,
  concurrency: { perPlatform: 5 },
  settings: XSettingsSchema,
  rules: 'X can have up to 4 pictures or 1 video per post; posts are limited to 280 weighted characters.',
  analytics: { channel: true, post: true },
});
