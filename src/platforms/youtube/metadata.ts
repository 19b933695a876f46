import { z } from 'zod';
import { LabelledOptionSchema, MediaRefSchema, MiB } from '../common/schemas.js';
import { accountTool, defineMetadata, mediaRules } from '../common/define-metadata.js';

/** Length YouTube charges for a tag list: labels with whitespace are quoted, so they cost 2 more. */
export function youtubeTagsLength(tags: readonly { label: string }[]): number {
  return tags.reduce((total, t) => total + t.label.length + (/\s/.test(t.label) ? 2 : 0), 0);
}

export const YOUTUBE_TAGS_MAX_LENGTH = 500;

/**
 * YouTube upload settings (reference YoutubeSettingsDto: `title`, `type`, `selfDeclaredMadeForKids`,
 * `thumbnail`, `tags`), plus optional fields the reference lacks, named as Postiz forks name them
 * where they have them: `categoryId` (a YouTube video category id, `videoCategories.list`),
 * `publishAt` (scheduled publication on YouTube; YouTube wants the video private until then),
 * `short` (the video is a Short: its URL is `/shorts/{id}`), `notifySubscribers` (default true).
 */
export const YoutubeSettingsSchema = z
  .object({
    title: z.string().min(2).max(100),
    type: z.enum(['public', 'private', 'unlisted']),
    selfDeclaredMadeForKids: z.enum(['yes', 'no']).optional(),
    thumbnail: MediaRefSchema.optional(),
    tags: z.array(LabelledOptionSchema).optional(),
    categoryId: z.string().regex(/^\d{1,10}$/, 'A YouTube category id is a number, e.g. "22" (People & Blogs)').optional(),
    publishAt: z.iso.datetime({ offset: true }).optional(),
    short: z.boolean().optional(),
    notifySubscribers: z.boolean().optional(),
  })
  .superRefine((s, ctx) => {
    if (s.tags && youtubeTagsLength(s.tags) > YOUTUBE_TAGS_MAX_LENGTH) {
      ctx.addIssue({
        code: 'custom',
        path: ['tags'],
        message: `Tags must total at most ${YOUTUBE_TAGS_MAX_LENGTH} characters (tags with spaces count 2 more)`,
      });
    }
    if (s.publishAt && s.type !== 'private') {
      ctx.addIssue({ code: 'custom', path: ['type'], message: 'A video scheduled with publishAt must be "private" until then (YouTube makes it public at that time)' });
    }
  });

export type YoutubeSettings = z.infer<typeof YoutubeSettingsSchema>;

export const youtubeMetadata = defineMetadata({
  identifier: 'youtube',
  displayName: 'YouTube',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://console.cloud.google.com/apis/credentials',
    app: 'a Google Cloud OAuth client of type "Web application", with the YouTube Data API v3 and YouTube Analytics API enabled',
  },
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
    // Google takes PKCE (S256) from web clients too, alongside the client secret.
    pkce: true,
    refresh: true,
  },
  // The description is limited to 5,000 bytes.
  text: { maxLength: 5000, counting: 'bytes' },
  // Exactly one MP4 video; the thumbnail is a setting, not an attachment.
  media: mediaRules({ minItems: 1, video: { maxCount: 1, mimeTypes: ['video/mp4'], maxBytes: 256 * 1024 * MiB, maxDurationSeconds: 12 * 60 * 60 } }),
  // Thread items become comments on the video (commentThreads.insert), the first one the "first comment".
  thread: { supported: true, kind: 'comment' },
  asyncProcessing: true,
  // Uploads are bounded by the project's daily quota, not by parallelism.
  concurrency: { perPlatform: 2 },
  settings: YoutubeSettingsSchema,
  tools: [accountTool('channels', 'YouTube channel', 'The YouTube channels the connected Google account reaches (the channel posts as the one marked current)')],
  rules: 'YouTube needs exactly one MP4 video per post, with a title; the text becomes the description and thread items become comments.',
  analytics: { channel: true, post: true },
});
