import { z } from 'zod';
import { MiB } from '../common/schemas.js';
import { accountTool, defineMetadata, imagesOnly } from '../common/define-metadata.js';

const CALL_TO_ACTION_TYPES = ['NONE', 'BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'GET_OFFER', 'CALL'] as const;

/**
 * Google Business Profile post settings (reference GmbSettingsDto). Every field is optional;
 * the dependent ones are checked only when the field they depend on asks for them, as the
 * reference does, so a stale `callToActionUrl` left behind with no CTA type is not refused.
 */
export const GmbSettingsSchema = z
  .object({
    topicType: z.enum(['STANDARD', 'EVENT', 'OFFER']).optional(),
    callToActionType: z.enum(CALL_TO_ACTION_TYPES).optional(),
    callToActionUrl: z.string().optional().describe('button target; needed when a call to action other than NONE or CALL is set'),
    eventTitle: z.string().optional().describe('needed for an EVENT post'),
    eventStartDate: z.string().optional(),
    eventEndDate: z.string().optional(),
    eventStartTime: z.string().optional(),
    eventEndTime: z.string().optional(),
    offerCouponCode: z.string().optional(),
    offerRedeemUrl: z.url().optional(),
    offerTerms: z.string().optional(),
  })
  .superRefine((s, ctx) => {
    if (s.topicType === 'EVENT' && !s.eventTitle?.trim()) {
      ctx.addIssue({ code: 'custom', path: ['eventTitle'], message: 'Required for an event' });
    }
    // A CALL button dials the business's phone number, so only link buttons need a URL.
    if (s.callToActionType && s.callToActionType !== 'NONE' && s.callToActionType !== 'CALL') {
      if (!s.callToActionUrl?.trim()) {
        ctx.addIssue({ code: 'custom', path: ['callToActionUrl'], message: 'Required for this call to action' });
      } else if (!z.url({ protocol: /^https?$/ }).safeParse(s.callToActionUrl).success) {
        ctx.addIssue({ code: 'custom', path: ['callToActionUrl'], message: 'Must be an http(s) URL' });
      }
    }
  });

export const gmbMetadata = defineMetadata({
  identifier: 'gmb',
  displayName: 'Google My Business',
  appName: 'Google Business Profile',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://console.cloud.google.com/apis/credentials',
    app: 'a Google Cloud OAuth client of type "Web application", with the Business Profile APIs enabled',
  },
  oauth: {
    authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    scopes: [
      'https://www.googleapis.com/auth/business.manage',
      'https://www.googleapis.com/auth/userinfo.profile',
      'https://www.googleapis.com/auth/userinfo.email',
    ],
    scopeSeparator: ' ',
    pkce: false,
    // With access_type=offline&prompt=consent Google issues a long-lived refresh token.
    refresh: true,
  },
  text: { maxLength: 1500, counting: 'characters' },
  // Google fetches the photo from its public URL (`media[].sourceUrl`): it must already fit.
  media: imagesOnly(1, ['image/jpeg', 'image/png'], { maxBytes: 5 * MiB, pulled: true }),
  // A local post may come back PROCESSING (under Google's review) before it is LIVE.
  asyncProcessing: true,
  concurrency: { perPlatform: 5 },
  settings: GmbSettingsSchema,
  tools: [accountTool('locations', 'location', 'List the Business Profile locations the Google account manages')],
  rules:
    'A Google Business Profile post can have at most one picture and no video; an event or offer post needs a title and start and end dates.',
  // Daily location metrics (Performance API); Google has no per-post figures any more (reportInsights was retired).
  analytics: { channel: true },
});
