import { z } from 'zod';
import { LabelledOptionSchema, MediaRefSchema, MiB } from '../common/schemas.js';
import type { PlatformMetadata } from '../platform.js';

/** Length YouTube charges for a tag list: labels with whitespace are quoted, so they cost 2 more. */
export function youtubeTagsLength(tags: readonly { label: string }[]): number {
  return tags.reduce((total, t) => total + t.label.length + (/\s/.test(t.label) ? 2 : 0), 0);
}

export const YOUTUBE_TAGS_MAX_LENGTH = 500;

/** YouTube upload settings (reference YoutubeSettingsDto). */
export const YoutubeSettingsSchema = z
  .object({
    title: z.string().min(2).max(100),
    type: z.enum(['public', 'private', 'unlisted']),
    selfDeclaredMadeForKids: z.enum(['yes', 'no']).optional(),
    thumbnail: MediaRefSchema.optional(),
    tags: z.array(LabelledOptionSchema).optional(),
  })
  .superRefine((s, ctx) => {
    if (s.tags && youtubeTagsLength(s.tags) > YOUTUBE_TAGS_MAX_LENGTH) {
      ctx.addIssue({
        code: 'custom',
        path: ['tags'],
        message: `Tags must total at most ${YOUTUBE_TAGS_MAX_LENGTH} characters (tags with spaces count 2 more)`,
      });
    }
  });

export const youtubeMetadata: PlatformMetadata = {
  identifier: 'youtube',
  displayName: 'YouTube',
  authKind: 'oauth2',
  oauth: {
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    scopes: [
      'https://www.googleapis.com/auth/userinfo.profile',
      'https://www.googleapis.com/auth/userinfo.email',
      'https://www.googleapis.com/auth/youtube',
      'https://www.googleapis.com/auth/youtube.force-ssl',
      'https://www.googleapis.com/auth/youtube.readonly',
      'https://www.googleapis.com/auth/youtube.upload',
      'https://www.googleapis.com/auth/youtubepartner',
      'https://www.googleapis.com/auth/yt-analytics.readonly',
    ],
    scopeSeparator: ' ',
    pkce: false,
    refresh: true,
  },
  instanceBased: false,
  editor: 'normal',
  // The description is limited to 5,000 bytes.
  text: { maxLength: 5000, counting: 'bytes' },
  // Exactly one MP4 video; the thumbnail is a setting, not an attachment.
  media: {
    minItems: 1,
    maxItems: 1,
    video: { maxCount: 1, mimeTypes: ['video/mp4'], maxBytes: 256 * 1024 * MiB, maxDurationSeconds: 12 * 60 * 60 },
    mixed: false,
    onThreadItems: false,
  },
  thread: { supported: false },
  asyncProcessing: true,
  // Uploads are bounded by the project's daily quota, not by parallelism.
  concurrency: { perPlatform: 2, perChannel: 1 },
  settings: YoutubeSettingsSchema,
  tools: [],
  rules: 'YouTube needs exactly one MP4 video per post, with a title; the text becomes the description.',
  analytics: { channel: true, post: true },
};
