import { z } from 'zod';
import { IMAGE_TYPES } from '../common/schemas.js';
import { WordSearchDataSchema } from '../common/schemas-b.js';
import type { PlatformMetadata } from '../platform.js';

/** Farcaster cast settings (reference FarcasterDto): channels to cast in (may be empty). */
export const WrapcastSettingsSchema = z.object({
  subreddit: z.array(z.object({ value: z.object({ id: z.string() }) })),
});

/** `POST /social/wrapcast`: an approved Neynar managed signer. */
export const WrapcastCredentialsSchema = z.object({
  signerUuid: z
    .string({ error: 'Required' })
    .trim()
    .min(1, 'Required')
    .pipe(z.uuid('Must be a signer UUID'))
    .describe('signer_uuid of an approved Neynar managed signer (Sign in with Neynar)'),
  apiKey: z.string().trim().min(1).optional().describe("Neynar API key; the server's own key is used when omitted"),
});

export const wrapcastMetadata: PlatformMetadata = {
  identifier: 'wrapcast',
  displayName: 'Farcaster',
  authKind: 'credentials',
  instanceBased: false,
  editor: 'normal',
  // A standard cast is at most 320 UTF-8 bytes.
  text: { maxLength: 320, counting: 'bytes' },
  // Pictures only, as URL embeds; a cast has at most 2 embeds.
  media: {
    minItems: 0,
    maxItems: 2,
    image: { maxCount: 2, mimeTypes: IMAGE_TYPES },
    mixed: false,
    onThreadItems: true,
  },
  thread: { supported: true, kind: 'reply' },
  asyncProcessing: false,
  concurrency: { perPlatform: 5, perChannel: 1 },
  settings: WrapcastSettingsSchema,
  credentials: WrapcastCredentialsSchema,
  tools: [{ methodName: 'subreddits', description: 'Search Farcaster channels matching a word', dataSchema: WordSearchDataSchema }],
  rules: 'Farcaster casts take pictures only (at most 2), no videos.',
  analytics: { channel: false, post: false },
};
