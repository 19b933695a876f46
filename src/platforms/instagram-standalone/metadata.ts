import { INSTAGRAM_POSTING, InstagramSettingsSchema } from '../common/instagram-settings.js';
import { defineMetadata } from '../common/define-metadata.js';

/** Same settings as `instagram` (reference InstagramDto). */
export const InstagramStandaloneSettingsSchema = InstagramSettingsSchema;

export const instagramStandaloneMetadata = defineMetadata({
  identifier: 'instagram-standalone',
  displayName: 'Instagram (Standalone)',
  appName: 'Instagram',
  authKind: 'oauth2',
  // Instagram Login: no Facebook Page involved; Business/Creator accounts only, HTTPS redirect URIs.
  deploymentApp: {
    consoleUrl: 'https://developers.facebook.com/apps/',
    app: 'a Meta app with the Instagram API with Instagram Login (its Instagram app id and secret)',
  },
  oauth: {
    authorizeUrl: 'https://www.instagram.com/oauth/authorize',
    tokenUrl: 'https://api.instagram.com/oauth/access_token',
    scopes: [
      'instagram_business_basic',
      'instagram_business_content_publish',
      'instagram_business_manage_comments',
      'instagram_business_manage_insights',
    ],
    scopeSeparator: ',',
    pkce: false,
    // The 60-day long-lived token is renewed with ig_refresh_token once it is a day old, and only
    // while it is valid: the token keeper renews idle channels (expiresAt = renew-at).
    refresh: true,
    renewWhileValid: true,
  },
  ...INSTAGRAM_POSTING,
  settings: InstagramStandaloneSettingsSchema,
});
