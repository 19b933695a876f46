import { z } from 'zod';
import { MiB, requiredString, NoToolDataSchema } from '../common/schemas.js';
import { defineMetadata, mediaRules } from '../common/define-metadata.js';

/** A shot's tag: a plain string or the `{ value, label }` pair the composer's tag pickers send. */
const Tag = z.union([z.string().trim().min(1).max(32), z.object({ value: z.string(), label: z.string().trim().min(1).max(32) })]);

/** The image sizes Dribbble takes for a shot, exactly (width × height). */
export const SHOT_SIZES: readonly (readonly [number, number])[] = [
  [400, 300],
  [800, 600],
  [1600, 1200],
];

/**
 * Dribbble shot settings (reference DribbbleDto: `title`, `team`). Postiz's clients send
 * `team: ""` for a personal shot and a team URL otherwise; the `teams` tool also gives the
 * team's numeric id, so either is taken. `tags` (≤ 12) is Tidings' own addition.
 */
export const DribbbleSettingsSchema = z.object({
  title: requiredString().describe('shot title'),
  team: z
    .union([z.literal(''), z.string().regex(/^\d+$/), z.url({ protocol: /^https?$/ })], { error: 'Must be a team id or the team’s Dribbble URL' })
    .optional()
    .describe('team to publish the shot under: its id or URL (from the teams tool); empty for a personal shot'),
  tags: z.array(Tag).max(12, 'At most 12 tags').optional().describe('shot tags (at most 12)'),
});

export const dribbbleMetadata = defineMetadata({
  identifier: 'dribbble',
  displayName: 'Dribbble',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://dribbble.com/account/applications',
    app: 'a Dribbble application (the upload scope needs approval by Dribbble)',
  },
  oauth: {
    authorizeUrl: 'https://dribbble.com/oauth/authorize',
    tokenUrl: 'https://dribbble.com/oauth/token',
    scopes: ['public', 'upload'],
    scopeSeparator: ' ',
    pkce: false,
    // Dribbble tokens do not expire and no refresh token is issued.
    refresh: false,
  },
  text: { maxLength: 40_000, counting: 'characters' },
  // A shot is exactly one picture; its exact dimensions (400×300, 800×600 or 1600×1200) are checked by `validate`.
  media: mediaRules({ minItems: 1, image: { maxCount: 1, mimeTypes: ['image/jpeg', 'image/png', 'image/gif'], maxBytes: 8 * MiB } }),
  // About 60 requests a minute per user.
  concurrency: { perPlatform: 2 },
  settings: DribbbleSettingsSchema,
  tools: [{ methodName: 'teams', description: 'List the teams the account belongs to', dataSchema: NoToolDataSchema }],
  rules: 'A Dribbble shot is exactly one picture (GIF, JPEG or PNG, at most 8 MB) of exactly 400×300, 800×600 or 1600×1200 pixels, with a title.',
  // No analytics: the reference only has stubs that always answer [].
});
