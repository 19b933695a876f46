import { LINKEDIN_OAUTH, LINKEDIN_POSTING, LinkedinSettingsSchema } from '../common/linkedin-settings.js';
import { accountTool, defineMetadata } from '../common/define-metadata.js';

/** Same settings as `linkedin` (reference LinkedinDto). */
export const LinkedinPageSettingsSchema = LinkedinSettingsSchema;

export const linkedinPageMetadata = defineMetadata({
  identifier: 'linkedin-page',
  displayName: 'LinkedIn Page',
  authKind: 'oauth2',
  // The Community Management scopes need LinkedIn's approval; the user must administer the page.
  deploymentApp: {
    consoleUrl: 'https://www.linkedin.com/developers/apps',
    app: 'a LinkedIn app with the "Community Management API" product',
  },
  oauth: { ...LINKEDIN_OAUTH, scopes: ['openid', 'profile', 'w_organization_social', 'r_organization_social', 'rw_organization_admin'] },
  ...LINKEDIN_POSTING,
  settings: LinkedinPageSettingsSchema,
  tools: [accountTool('pages', 'page', 'The LinkedIn pages the connected member administers (the channel posts as the one marked current)')],
  analytics: { channel: true, post: true },
});
