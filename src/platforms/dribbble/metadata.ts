import { z } from 'zod';
import { MiB, requiredString } from '../common/schemas.js';
import { NoToolData } from '../common/schemas-a.js';
import type { PlatformMetadata } from '../platform.js';

/** Dribbble shot settings (reference DribbbleDto). The reference validates `team` as a URL. */
export const DribbbleSettingsSchema = z.object({
  title: requiredString().describe('shot title'),
  team: z.url().optional().describe('team to publish the shot under'),
});

export const dribbbleMetadata: PlatformMetadata = {
  identifier: 'dribbble',
  displayName: 'Dribbble',
  authKind: 'oauth2',
  oauth: {
    authorizeUrl: 'https://dribbble.com/oauth/authorize',
    tokenUrl: 'https://dribbble.com/oauth/token',
    scopes: ['public', 'upload'],
    scopeSeparator: ' ',
    pkce: false,
    // Dribbble tokens do not expire and no refresh token is issued.
    refresh: false,
  },
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 40_000, counting: 'characters' },
  // A shot is exactly one picture; its exact dimensions (400×300 or 800×600) are checked by `validate`.
  media: {
    minItems: 1,
    maxItems: 1,
    image: { maxCount: 1, mimeTypes: ['image/jpeg', 'image/png', 'image/gif'], maxBytes: 8 * MiB },
    mixed: false,
    onThreadItems: false,
  },
  thread: { supported: false },
  asyncProcessing: false,
  // About 60 requests a minute per user.
  concurrency: { perPlatform: 2, perChannel: 1 },
  settings: DribbbleSettingsSchema,
  tools: [{ methodName: 'teams', description: 'List the teams the account belongs to', dataSchema: NoToolData }],
  rules: '',
  // The reference only has stubs that always answer [].
  analytics: { channel: false, post: false },
};
