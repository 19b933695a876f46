import { z } from 'zod';
import { LabelledOptionSchema, UrlOrPostPlaceholder, NoToolDataSchema, requiredSecret, requiredText } from '../common/schemas.js';
import { defineMetadata, imagesOnly } from '../common/define-metadata.js';

/** `POST /social/medium`: an integration token (Medium stopped issuing new ones on 2025-01-01). */
export const MediumCredentialsSchema = z.object({
  token: requiredSecret().describe(
    'Medium integration token (medium.com → Settings → Security and apps → Integration tokens), sent as a Bearer token. ' +
      'Medium stopped issuing new integration tokens on 1 January 2025: only a token you already have can be used.',
  ),
});

/** Medium uses only the first 3 tags and ignores tags longer than 25 characters (its API documentation). */
export const MEDIUM_MAX_TAGS = 3;
export const MEDIUM_MAX_TAG_LENGTH = 25;

/** Medium story settings (reference MediumSettingsDto). Medium itself only uses the first 3 tags. */
export const MediumSettingsSchema = z.object({
  // Medium ignores a title over 100 characters (and makes one up from the content).
  title: requiredText(2).max(100, 'At most 100 characters (Medium ignores longer titles)'),
  subtitle: requiredText(2),
  canonical: UrlOrPostPlaceholder.optional().describe('original URL, or (post:…) for another post of this group'),
  publication: z.string().optional().describe('publication id (from the `publications` tool); a draft there unless `publishStatus` says otherwise'),
  tags: z
    .array(LabelledOptionSchema.refine((t) => t.value.trim().length <= MEDIUM_MAX_TAG_LENGTH, `A tag has at most ${MEDIUM_MAX_TAG_LENGTH} characters`))
    .max(MEDIUM_MAX_TAGS, `At most ${MEDIUM_MAX_TAGS} tags (Medium uses only the first 3)`)
    .optional(),
  /** Extension: the format the body is sent in (default markdown, converted from the post's HTML). */
  contentFormat: z.enum(['markdown', 'html']).optional().describe('the format the story is sent to Medium in (default markdown)'),
  /** Extension: Medium's publishStatus (default public; draft when posted to a publication). */
  publishStatus: z.enum(['public', 'draft', 'unlisted']).optional().describe('public, draft or unlisted (default public; draft in a publication)'),
  /** Extension: whether Medium tells the account's followers. */
  notifyFollowers: z.boolean().optional(),
});

export const mediumMetadata = defineMetadata({
  identifier: 'medium',
  displayName: 'Medium',
  authKind: 'credentials',
  editor: 'markdown',
  text: { maxLength: 100_000, counting: 'characters' },
  // Pictures are placed inline in the story body. Medium fetches them from their public URL
  // (`<img src>` in the body) and re-hosts them.
  media: imagesOnly(10, ['image/jpeg', 'image/png', 'image/gif'], { pulled: true }),
  concurrency: { perPlatform: 2 },
  settings: MediumSettingsSchema,
  credentials: MediumCredentialsSchema,
  tools: [{ methodName: 'publications', description: 'List the publications the account can submit to', dataSchema: NoToolDataSchema }],
});
