import { z } from 'zod';
import { NoToolDataSchema } from '../common/schemas.js';
import { defineMetadata, imagesOnly } from '../common/define-metadata.js';

/** MeWe post settings (reference MeweDto): a group is needed only for a group post. */
export const MeweSettingsSchema = z
  .object({
    postType: z.enum(['timeline', 'group'], { error: 'Required' }),
    group: z.string().optional().describe('group id (from the `groups` tool); required for a group post'),
  })
  .superRefine((s, ctx) => {
    if (s.postType === 'group' && !s.group) {
      ctx.addIssue({ code: 'custom', path: ['group'], message: 'Required' });
    }
  });

/** The rule sentence of `GET /integration-settings`: what is verified and what is assumed. */
export const MEWE_RULES =
  'MeWe publishes no public documentation of its developer API, so nothing here is verified against public documentation: Tidings follows a known working implementation (login at mewe.com/login with the deployment\'s app id and key → loginRequestToken → per-user apiToken; photos uploaded to /api/dev/photo/upload; posts to /api/dev/me/post or /api/dev/group/{group}/post). ' +
  'Assumed: the host https://mewe.com, the token lifetime (30 days when MeWe does not say), the post id MeWe answers, the 420 "Enhance Your Calm" wait (60 s when not given). ' +
  'A post goes to your timeline or to a group (postType, group from the groups tool); photos only (videos are refused when the post is made); no comments, so thread items are refused. An unapproved login is refused with that reason; "Unauthorized" asks you to reconnect; "Forbidden" fails the post with MeWe\'s word.';

export const meweMetadata = defineMetadata({
  identifier: 'mewe',
  displayName: 'MeWe',
  authKind: 'oauth2',
  // Not standard OAuth: the login page redirects back with a `loginRequestToken`, which is
  // exchanged (with the app's X-App-Id / X-Api-Key) for a per-user apiToken. No scopes, no refresh.
  deploymentApp: {
    consoleUrl: null,
    app: 'a MeWe developer app, given by MeWe on request (MEWE_CLIENT_ID is its X-App-Id, MEWE_CLIENT_SECRET its X-Api-Key)',
  },
  oauth: {
    authorizeUrl: 'https://mewe.com/login',
    tokenUrl: 'https://mewe.com/api/dev/token',
    scopes: [],
    pkce: false,
    refresh: false,
    // MeWe sends the user back with `loginRequestToken`, not `code`.
    callbackCodeParam: 'loginRequestToken',
  },
  text: { maxLength: 63_206, counting: 'characters' },
  // Photos only (videos are not sent); the count limit is not documented.
  media: imagesOnly(10),
  // MeWe answers 420 "Enhance Your Calm" when pushed.
  concurrency: { perPlatform: 2 },
  settings: MeweSettingsSchema,
  tools: [{ methodName: 'groups', description: 'List the groups the account belongs to', dataSchema: NoToolDataSchema }],
  rules: MEWE_RULES,
});
