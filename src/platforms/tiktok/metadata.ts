import { z } from 'zod';
import { MiB } from '../common/schemas.js';
import { defineMetadata, mediaRules } from '../common/define-metadata.js';

const Volume = z.number().min(0).max(100);

/** TikTok post settings (reference TikTokDto). With `UPLOAD` the video goes to the creator's inbox and the other settings are ignored. */
export const TiktokSettingsSchema = z.object({
  title: z.string().max(90).optional(),
  privacy_level: z.enum(['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY']),
  duet: z.boolean(),
  stitch: z.boolean(),
  comment: z.boolean(),
  autoAddMusic: z.enum(['yes', 'no']),
  brand_content_toggle: z.boolean(),
  brand_organic_toggle: z.boolean(),
  video_made_with_ai: z.boolean().optional(),
  content_posting_method: z.enum(['DIRECT_POST', 'UPLOAD']),
  // The two below are only honoured by the TikTok Business API.
  music: z
    .object({
      id: z.string().min(1),
      title: z.string().optional(),
      artist: z.string().optional(),
      image: z.string().optional(),
      audio_volume: Volume.optional(),
      video_volume: Volume.optional(),
    })
    .optional(),
  location: z.object({ id: z.string().min(1), name: z.string(), address: z.string().optional() }).optional(),
});

export const tiktokMetadata = defineMetadata({
  identifier: 'tiktok',
  displayName: 'Tiktok',
  appName: 'TikTok',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://developers.tiktok.com/apps/',
    app: 'a TikTok app with Login Kit and the Content Posting API (TIKTOK_CLIENT_ID is its client key)',
  },
  oauth: {
    authorizeUrl: 'https://www.tiktok.com/v2/auth/authorize/',
    tokenUrl: 'https://open.tiktokapis.com/v2/oauth/token/',
    scopes: ['video.list', 'user.info.basic', 'video.publish', 'video.upload', 'user.info.profile', 'user.info.stats'],
    scopeSeparator: ',',
    // TikTok's Login Kit wants a PKCE challenge, hex-encoded (see client.ts#hexChallenge).
    pkce: true,
    refresh: true,
  },
  text: { maxLength: 2000, counting: 'characters' },
  // One video, or 1–35 photos; never both. TikTok pulls photos from their public URL and takes
  // JPEG or WebP only (it refuses PNG: `file_format_check_failed`): a PNG picture is handed to it
  // as the URL of its JPEG rendition (`platformTypes`). At most 20 MB as uploaded.
  media: mediaRules({
    minItems: 1,
    image: { maxCount: 35, mimeTypes: ['image/jpeg', 'image/webp', 'image/png'], platformTypes: ['image/jpeg', 'image/webp'], maxBytes: 20 * MiB, pulled: true },
    video: {
      maxCount: 1,
      mimeTypes: ['video/mp4', 'video/webm', 'video/quicktime'],
      maxBytes: 4096 * MiB,
      maxDurationSeconds: 600,
    },
  }),
  asyncProcessing: true,
  // The post-init endpoints allow 6 requests per minute per user.
  concurrency: { perPlatform: 3 },
  settings: TiktokSettingsSchema,
  tools: [
    {
      methodName: 'creatorInfo',
      description:
        'What this TikTok account allows right now (creator_info): the privacy levels offered, whether comments, duets and stitches are turned off, the longest video it may post',
      dataSchema: z.object({}),
    },
  ],
  rules:
    'TikTok needs either one video or up to 35 JPEG or WebP pictures (pictures and video cannot be mixed); the text becomes the caption. The privacy level must be one this account offers (tool creatorInfo).',
  analytics: { channel: true, post: true },
});
