import { z } from 'zod';
import { requiredString, requiredHttpUrl, requiredSecret, requiredText } from '../common/schemas.js';
import { defineMetadata, imagesOnly } from '../common/define-metadata.js';

/** `POST /social/lemmy`: a login on one Lemmy instance. */
export const LemmyCredentialsSchema = z.object({
  instanceUrl: requiredHttpUrl().describe('base URL of the Lemmy instance, e.g. https://lemmy.world'),
  username: requiredString().describe('username or email on that instance'),
  password: requiredSecret().describe('account password (kept sealed: Tidings logs in again with it when the session ends)'),
  totpToken: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'Must be the 6-digit code of your authenticator app')
    .optional()
    .describe('two-factor code, only for accounts with 2FA enabled'),
});

/** One community to post to, as the reference's clients send it. */
const LemmyCommunitySchema = z.object({
  value: z.object({
    subreddit: requiredText(2).describe('community name'),
    id: z.string({ error: 'Required' }).describe('community id (from the `subreddits` tool)'),
    title: requiredText(2),
    url: z.url().optional().describe('link the post points to'),
  }),
});

/** Lemmy post settings (reference LemmySettingsDto): one post per listed community. */
export const LemmySettingsSchema = z.object({
  subreddit: z.array(LemmyCommunitySchema, { error: 'Required' }).min(1, 'Pick at least one community'),
  /** Lemmy's `nsfw` flag on the post (an extension; the reference DTO has no such field). */
  nsfw: z.boolean().optional(),
});

export const lemmyMetadata = defineMetadata({
  identifier: 'lemmy',
  displayName: 'Lemmy',
  authKind: 'credentials',
  instanceBased: true,
  // Comments are capped at 10,000 on Lemmy (post bodies at 50,000); the reference uses 10,000.
  text: { maxLength: 10_000, counting: 'characters' },
  // A post has one picture, sent as its thumbnail.
  media: imagesOnly(1, ['image/png', 'image/jpeg', 'image/gif']),
  thread: { supported: true, kind: 'comment' },
  // Instances allow only a few posts per 10 minutes by default.
  concurrency: { perPlatform: 2 },
  settings: LemmySettingsSchema,
  credentials: LemmyCredentialsSchema,
  tools: [
    { methodName: 'subreddits', description: 'Search communities by name', dataSchema: z.object({ word: z.string() }) },
  ],
  analytics: { post: true },
});
