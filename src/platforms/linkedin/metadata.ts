import { LINKEDIN_OAUTH, LINKEDIN_POSTING, LinkedinSettingsSchema } from '../common/linkedin-settings.js';
import { defineMetadata } from '../common/define-metadata.js';

export const linkedinMetadata = defineMetadata({
  identifier: 'linkedin',
  displayName: 'LinkedIn',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://www.linkedin.com/developers/apps',
    app: 'a LinkedIn app with the "Share on LinkedIn" and "Sign In with LinkedIn using OpenID Connect" products',
  },
  oauth: { ...LINKEDIN_OAUTH, scopes: ['openid', 'profile', 'w_member_social'] },
  ...LINKEDIN_POSTING,
  settings: LinkedinSettingsSchema,
});
