import { z } from 'zod';
import { MiB, VIDEO_TYPES } from '../common/schemas.js';
import { accountTool, defineMetadata, mediaRules } from '../common/define-metadata.js';

/**
 * Facebook Page post settings (reference FacebookDto); every field is optional. `post_type`
 * also takes `reel` (the reference's providers list post / reel / story): a single video posted
 * through the Reels API instead of as a Page video.
 */
export const FacebookSettingsSchema = z.object({
  url: z.url().optional().describe('link attached to the post (a text post shows its preview; with pictures it is added to the text)'),
  post_type: z.enum(['post', 'reel', 'story']).optional(),
  // Background presets only apply to short text-only posts; the ids are not checked here.
  text_format_preset_id: z.string().optional().describe('background preset id for a short text-only post'),
});

export const facebookMetadata = defineMetadata({
  identifier: 'facebook',
  displayName: 'Facebook Page',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://developers.facebook.com/apps/',
    app: 'a Meta app with Facebook Login and the Pages permissions',
  },
  oauth: {
    authorizeUrl: 'https://www.facebook.com/v23.0/dialog/oauth',
    tokenUrl: 'https://graph.facebook.com/v23.0/oauth/access_token',
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
    // A 60-day user token with no refresh token; the Page token got with it lasts until revoked.
    refresh: false,
  },
  text: { maxLength: 63_206, counting: 'characters' },
  // Comments are sent as text only.
  media: mediaRules({
    image: { maxCount: 10, mimeTypes: ['image/jpeg', 'image/png'], maxBytes: 4 * MiB },
    video: { maxCount: 1, mimeTypes: VIDEO_TYPES },
  }),
  thread: { supported: true, kind: 'comment' },
  // Videos, reels and stories are uploaded and processed over several checks.
  asyncProcessing: true,
  concurrency: { perPlatform: 5 },
  settings: FacebookSettingsSchema,
  tools: [accountTool('pages', 'Page', 'The Facebook Pages the connected user can publish on (choose one with PUT /integrations/{id}/account)')],
  rules:
    'A Facebook Page post may be text only or carry up to 10 pictures or a single video, not both; a reel is one video; a story is one picture or one video.',
  analytics: { channel: true, post: true },
});
