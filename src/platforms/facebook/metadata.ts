import { z } from 'zod';
import { MiB, VIDEO_TYPES } from '../common/schemas.js';
import type { PlatformMetadata } from '../platform.js';

/** Facebook Page post settings (reference FacebookDto); every field is optional. */
export const FacebookSettingsSchema = z.object({
  url: z.url().optional().describe('link attached to the post'),
  post_type: z.enum(['post', 'story']).optional(),
  // Background presets only apply to short text-only posts; the ids are not checked here.
  text_format_preset_id: z.string().optional().describe('background preset id for a short text-only post'),
});

export const facebookMetadata: PlatformMetadata = {
  identifier: 'facebook',
  displayName: 'Facebook Page',
  authKind: 'oauth2',
  oauth: {
    authorizeUrl: 'https://www.facebook.com/v20.0/dialog/oauth',
    tokenUrl: 'https://graph.facebook.com/v20.0/oauth/access_token',
    scopes: [
      'pages_show_list',
      'business_management',
      'pages_manage_posts',
      'pages_manage_engagement',
      'pages_read_engagement',
      'read_insights',
    ],
    scopeSeparator: ',',
    pkce: false,
    // A 60-day user token with no refresh token; the derived Page token lasts until revoked.
    refresh: false,
  },
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 63_206, counting: 'characters' },
  media: {
    minItems: 0,
    maxItems: 10,
    image: { maxCount: 10, mimeTypes: ['image/jpeg', 'image/png'], maxBytes: 4 * MiB },
    video: { maxCount: 1, mimeTypes: VIDEO_TYPES },
    mixed: false,
    // Comments are sent as text only.
    onThreadItems: false,
  },
  thread: { supported: true, kind: 'comment' },
  // Stories and reels are processed after the upload call returns.
  asyncProcessing: true,
  concurrency: { perPlatform: 5, perChannel: 1 },
  settings: FacebookSettingsSchema,
  tools: [],
  rules:
    'A Facebook Page post may be text only or carry up to 10 pictures or a single video, not both; a story needs at least one picture or video.',
  analytics: { channel: true, post: true },
};
