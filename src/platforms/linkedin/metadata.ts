import { LINKEDIN_MEDIA, LINKEDIN_RULES, LinkedinSettingsSchema } from '../common/linkedin-settings.js';
import type { PlatformMetadata } from '../platform.js';

export const linkedinMetadata: PlatformMetadata = {
  identifier: 'linkedin',
  displayName: 'LinkedIn',
  authKind: 'oauth2',
  deploymentApp: {
    variables: ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET'],
    consoleUrl: 'https://www.linkedin.com/developers/apps',
    app: 'a LinkedIn app with the "Share on LinkedIn" and "Sign In with LinkedIn using OpenID Connect" products',
  },
  oauth: {
    authorizeUrl: 'https://www.linkedin.com/oauth/v2/authorization',
    tokenUrl: 'https://www.linkedin.com/oauth/v2/accessToken',
    scopes: ['openid', 'profile', 'w_member_social'],
    scopeSeparator: ' ',
    pkce: false,
    // Refresh tokens come only to apps approved for programmatic refresh; others reconnect every 60 days.
    refresh: true,
  },
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 3000, counting: 'characters' },
  media: LINKEDIN_MEDIA,
  thread: { supported: true, kind: 'comment' },
  // Videos are processed after upload (poll until AVAILABLE).
  asyncProcessing: true,
  // About 150 posts a day per member; daily limits reset at midnight UTC.
  concurrency: { perPlatform: 5, perChannel: 1 },
  settings: LinkedinSettingsSchema,
  tools: [],
  rules: LINKEDIN_RULES,
  analytics: { channel: false, post: false },
};
