import { z } from 'zod';
import { requiredString, IdToolDataSchema, NoToolDataSchema } from '../common/schemas.js';
import { anyAttachments, defineMetadata } from '../common/define-metadata.js';

/** Whop forum post settings (reference WhopDto): company and experience (forum) ids, optional title. */
export const WhopSettingsSchema = z.object({
  company: requiredString().describe('company id'),
  experience: requiredString().describe('experience (forum) id'),
  title: z.string().optional(),
});

export const whopMetadata = defineMetadata({
  identifier: 'whop',
  displayName: 'Whop',
  authKind: 'oauth2',
  deploymentApp: {
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
  editor: 'markdown',
  text: { maxLength: 50_000, counting: 'characters' },
  // Files are attached to the forum post; Whop publishes no count limit.
  media: anyAttachments(10),
  thread: { supported: true, kind: 'comment' },
  // Attached files are processed by Whop before the post can be made (publish may answer pending).
  asyncProcessing: true,
  concurrency: { perPlatform: 3 },
  settings: WhopSettingsSchema,
  tools: [
    { methodName: 'companies', description: 'Companies the account can post for', dataSchema: NoToolDataSchema },
    { methodName: 'experiences', description: 'Forums (experiences) of a company; data.id is the company id', dataSchema: IdToolDataSchema },
  ],
});
