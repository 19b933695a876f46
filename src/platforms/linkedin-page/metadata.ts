import { z } from 'zod';
import { LINKEDIN_MEDIA, LINKEDIN_RULES, LinkedinSettingsSchema } from '../common/linkedin-settings.js';
import type { PlatformMetadata } from '../platform.js';

/** Same settings as `linkedin` (reference LinkedinDto). */
export const LinkedinPageSettingsSchema = LinkedinSettingsSchema;

export const linkedinPageMetadata: PlatformMetadata = {
  identifier: 'linkedin-page',
  displayName: 'LinkedIn Page',
  authKind: 'oauth2',
  // The Community Management scopes need LinkedIn's approval; the user must administer the page.
  deploymentApp: {
    variables: ['LINKEDIN_PAGE_CLIENT_ID', 'LINKEDIN_PAGE_CLIENT_SECRET'],
    consoleUrl: 'https://www.linkedin.com/developers/apps',
    app: 'a LinkedIn app with the "Community Management API" product',
  },
  oauth: {
    authorizeUrl: 'https://www.linkedin.com/oauth/v2/authorization',
    tokenUrl: 'https://www.linkedin.com/oauth/v2/accessToken',
    scopes: ['openid', 'profile', 'w_organization_social', 'r_organization_social', 'rw_organization_admin'],
    scopeSeparator: ' ',
    pkce: false,
    refresh: true,
  },
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 3000, counting: 'characters' },
  media: LINKEDIN_MEDIA,
  thread: { supported: true, kind: 'comment' },
  asyncProcessing: true,
  concurrency: { perPlatform: 5, perChannel: 1 },
  settings: LinkedinPageSettingsSchema,
  tools: [
    {
      methodName: 'pages',
      description: 'The LinkedIn pages the connected member administers (the channel posts as the one marked current)',
      dataSchema: z.object({}),
    },
  ],
  rules: LINKEDIN_RULES,
  analytics: { channel: true, post: true },
};
