import { z } from 'zod';
import { INSTAGRAM_POSTING } from '../common/instagram-settings.js';
import { accountTool, defineMetadata } from '../common/define-metadata.js';

export const instagramMetadata = defineMetadata({
  identifier: 'instagram',
  displayName: 'Instagram (Facebook Business)',
  appName: 'Instagram (Facebook login)',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://developers.facebook.com/apps/',
    app: 'a Meta app with Facebook Login and the Instagram publishing permissions (may be the Facebook app)',
  },
  oauth: {
    authorizeUrl: 'https://www.facebook.com/v23.0/dialog/oauth',
    tokenUrl: 'https://graph.facebook.com/v23.0/oauth/access_token',
    scopes: [
      'instagram_basic',
      'pages_show_list',
      'pages_read_engagement',
      'business_management',
      'instagram_content_publish',
      'instagram_manage_comments',
      'instagram_manage_insights',
    ],
    scopeSeparator: ',',
    pkce: false,
    // Facebook Login gives a 60-day user token and no refresh token.
    refresh: false,
  },
  ...INSTAGRAM_POSTING,
  tools: [
    accountTool('accounts', 'account', 'The Instagram accounts linked to the Facebook Pages the connected user manages (choose one with PUT /integrations/{id}/account)'),
    {
      methodName: 'audioSearch',
      description: 'Search licensed audio for reels',
      dataSchema: z.object({ q: z.string(), type: z.string() }),
    },
  ],
});
