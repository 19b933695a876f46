import { z } from 'zod';
import { IMAGE_TYPES, LabelledOptionSchema, UrlOrPostPlaceholder } from '../common/schemas.js';
import { NoToolData, requiredSecret } from '../common/schemas-a.js';
import type { PlatformMetadata } from '../platform.js';

/** `POST /social/medium`: an integration token (Medium stopped issuing new ones on 2025-01-01). */
export const MediumCredentialsSchema = z.object({
  token: requiredSecret().describe('Medium integration token, sent as a Bearer token'),
});

/** Medium story settings (reference MediumSettingsDto). Medium itself only uses the first 3 tags. */
export const MediumSettingsSchema = z.object({
  title: z.string({ error: 'Required' }).min(2, 'Must be at least 2 characters'),
  subtitle: z.string({ error: 'Required' }).min(2, 'Must be at least 2 characters'),
  canonical: UrlOrPostPlaceholder.optional().describe('original URL, or (post:…) for another post of this group'),
  publication: z.string().optional().describe('publication id (from the `publications` tool); posted as a draft there'),
  tags: z.array(LabelledOptionSchema).max(4, 'At most 4 tags').optional(),
});

export const mediumMetadata: PlatformMetadata = {
  identifier: 'medium',
  displayName: 'Medium',
  authKind: 'credentials',
  instanceBased: false,
  editor: 'markdown',
  text: { maxLength: 100_000, counting: 'characters' },
  media: {
    minItems: 0,
    // Pictures are placed inline in the story body.
    maxItems: 10,
    image: { maxCount: 10, mimeTypes: IMAGE_TYPES },
    mixed: false,
    onThreadItems: false,
  },
  thread: { supported: false },
  asyncProcessing: false,
  concurrency: { perPlatform: 2, perChannel: 1 },
  settings: MediumSettingsSchema,
  credentials: MediumCredentialsSchema,
  tools: [{ methodName: 'publications', description: 'List the publications the account can submit to', dataSchema: NoToolData }],
  rules: '',
  analytics: { channel: false, post: false },
};
