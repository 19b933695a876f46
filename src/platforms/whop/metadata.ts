import { z } from 'zod';
import { IMAGE_TYPES, VIDEO_TYPES, requiredString, IdToolDataSchema, NoToolDataSchema } from '../common/schemas.js';
import type { PlatformMetadata } from '../platform.js';

/** Whop forum post settings (reference WhopDto): company and experience (forum) ids, optional title. */
export const WhopSettingsSchema = z.object({
  company: requiredString().describe('company id'),
  experience: requiredString().describe('experience (forum) id'),
  title: z.string().optional(),
});

export const whopMetadata: PlatformMetadata = {
  identifier: 'whop',
  displayName: 'Whop',
  authKind: 'oauth2',
  deploymentApp: {
    variables: ['WHOP_CLIENT_ID', 'WHOP_CLIENT_SECRET'],
    consoleUrl: 'https://whop.com/dashboard/developer',
    app: 'a Whop app with OAuth',
  },
  oauth: {
    authorizeUrl: 'https://api.whop.com/oauth/authorize',
    tokenUrl: 'https://api.whop.com/oauth/token',
    scopes: ['openid', 'profile', 'email', 'forum:post:create', 'forum:read', 'company:basic:read'],
    scopeSeparator: ' ',
    pkce: true,
    refresh: true,
  },
  instanceBased: false,
  editor: 'markdown',
  text: { maxLength: 50_000, counting: 'characters' },
  // Files are attached to the forum post; Whop publishes no count limit.
  media: {
    minItems: 0,
    maxItems: 10,
    image: { maxCount: 10, mimeTypes: IMAGE_TYPES },
    video: { maxCount: 10, mimeTypes: VIDEO_TYPES },
    mixed: true,
    onThreadItems: true,
  },
  thread: { supported: true, kind: 'comment' },
  // Attached files are processed by Whop before the post can be made (publish may answer pending).
  asyncProcessing: true,
  concurrency: { perPlatform: 3, perChannel: 1 },
  settings: WhopSettingsSchema,
  tools: [
    { methodName: 'companies', description: 'Companies the account can post for', dataSchema: NoToolDataSchema },
    { methodName: 'experiences', description: 'Forums (experiences) of a company; data.id is the company id', dataSchema: IdToolDataSchema },
  ],
  rules: '',
  analytics: { channel: false, post: false },
};
