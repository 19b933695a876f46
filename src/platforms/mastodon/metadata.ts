import { z } from 'zod';
import { IMAGE_TYPES, MiB, VIDEO_TYPES } from '../common/schemas.js';
import { defineMetadata, mediaRules } from '../common/define-metadata.js';

/** Mastodon's default `configuration.statuses.max_characters`; the content warning counts towards it. */
export const MASTODON_MAX_CHARACTERS = 500;

/**
 * A status's settings, with Mastodon's own field names (POST /api/v1/statuses): who sees it and
 * its content warning. Both apply to every item of the post (thread replies keep the first one's
 * audience and warning, as Mastodon's apps do).
 */
export const MastodonSettingsSchema = z.object({
  visibility: z
    .enum(['public', 'unlisted', 'private', 'direct'])
    .default('public')
    .describe('public: everyone; unlisted: everyone, left out of public timelines; private: followers only; direct: the mentioned people only'),
  spoiler_text: z
    .string()
    .max(MASTODON_MAX_CHARACTERS, `A content warning has at most ${MASTODON_MAX_CHARACTERS} characters (it counts towards the post's ${MASTODON_MAX_CHARACTERS})`)
    .optional()
    .describe('content warning: shown instead of the text until the reader opens it (counts towards the character limit)'),
});
export type MastodonSettings = z.output<typeof MastodonSettingsSchema>;

export const mastodonMetadata = defineMetadata({
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
  // The default; instances may configure more (GET /api/v2/instance).
  text: { maxLength: 500, counting: 'mastodon' },
  media: mediaRules({
    image: { maxCount: 4, mimeTypes: IMAGE_TYPES, maxBytes: 16 * MiB },
    video: { maxCount: 1, mimeTypes: VIDEO_TYPES, maxBytes: 99 * MiB },
    onThreadItems: true,
  }),
  thread: { supported: true, kind: 'reply' },
  // Media may answer 202 and be processed before the status can use it.
  asyncProcessing: true,
  // 300 requests per 5 minutes per account, 30 media uploads per 30 minutes.
  concurrency: { perPlatform: 5 },
  settings: MastodonSettingsSchema,
  rules: 'Mastodon posts can be public, unlisted, followers-only or direct, with an optional content warning that counts towards the 500 characters.',
  analytics: { channel: true, post: true },
});
