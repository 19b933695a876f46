import { z } from 'zod';
import { IMAGE_TYPES, WordSearchDataSchema } from '../common/schemas.js';
import { defineMetadata, mediaRules } from '../common/define-metadata.js';

/** Farcaster cast settings (reference FarcasterDto): the channel to cast in (the reference's array; empty = the home feed). */
export const WrapcastSettingsSchema = z
  .object({
    subreddit: z.array(z.object({ value: z.object({ id: z.string() }) })).optional(),
  })
  .superRefine((s, ctx) => {
    // A cast lives in one channel; several would be several casts, which one post cannot name.
    if ((s.subreddit?.length ?? 0) > 1) {
      ctx.addIssue({ code: 'custom', path: ['subreddit'], message: 'A cast goes into one channel: choose one (or make one post per channel)' });
    }
  });

export const wrapcastMetadata = defineMetadata({
  identifier: 'wrapcast',
  displayName: 'Farcaster',
  // Sign in with Neynar: the user approves a Neynar-managed signer for the deployment's Neynar app
  // (WRAPCAST_CLIENT_ID = the Neynar client id, WRAPCAST_CLIENT_SECRET = the Neynar API key) and
  // comes back to the callback with `signer_uuid` and `fid`. There is no token exchange and no
  // expiry: the signer works until the user revokes it.
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://dev.neynar.com/',
    app: 'a Neynar app with Sign in with Neynar (WRAPCAST_CLIENT_ID is its client id, WRAPCAST_CLIENT_SECRET its API key)',
  },
  oauth: {
    authorizeUrl: 'https://app.neynar.com/login',
    tokenUrl: 'https://api.neynar.com/v2/farcaster/signer',
    scopes: [],
    pkce: false,
    refresh: false,
    callbackCodeParam: 'signer_uuid',
  },
  // A standard cast is at most 320 UTF-8 bytes (Pro accounts may cast 1,024, but a post is
  // validated before the account is known, so every post is held to 320).
  text: { maxLength: 320, counting: 'bytes' },
  // Pictures only, as URL embeds; a cast has at most 2 embeds. Farcaster clients fetch the picture
  // from its public URL: it is sent as stored, never re-encoded.
  media: mediaRules({ image: { maxCount: 2, mimeTypes: IMAGE_TYPES, pulled: true }, onThreadItems: true }),
  thread: { supported: true, kind: 'reply' },
  concurrency: { perPlatform: 5 },
  settings: WrapcastSettingsSchema,
  tools: [{ methodName: 'subreddits', description: 'Search Farcaster channels matching a word', dataSchema: WordSearchDataSchema }],
  rules: 'Farcaster casts take pictures only (at most 2, sent as their public https URL), no videos; at most 320 bytes of text; one channel per post.',
  analytics: { post: true },
});
