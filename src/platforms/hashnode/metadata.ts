import { z } from 'zod';
import { LabelledOptionSchema, MediaRefSchema, requiredString, NoToolDataSchema, requiredSecret, requiredText } from '../common/schemas.js';
import { defineMetadata, imagesOnly } from '../common/define-metadata.js';

/** `POST /social/hashnode`: a personal access token (hashnode.com → Settings → Developer). */
export const HashnodeCredentialsSchema = z.object({
  token: requiredSecret().describe('Hashnode personal access token, sent as the `Authorization` header'),
});

/** Hashnode article settings (reference HashnodeSettingsDto). */
export const HashnodeSettingsSchema = z.object({
  title: requiredText(6),
  subtitle: z.string().min(2, 'Must be at least 2 characters').optional(),
  main_image: MediaRefSchema.optional(),
  canonical: z.url().optional(),
  publication: requiredString().describe('publication id (from the `publications` tool)'),
  /** `value`: a Hashnode tag id (24 hex digits) or its slug, looked up with `tag(slug:)` at publish time. */
  tags: z.array(LabelledOptionSchema, { error: 'Required' }).min(1, 'At least one tag').max(5, 'At most 5 tags'),
});

export const hashnodeMetadata = defineMetadata({
  identifier: 'hashnode',
  displayName: 'Hashnode',
  authKind: 'credentials',
  editor: 'markdown',
  text: { maxLength: 10_000, counting: 'characters' },
  // One cover picture (sent as a URL); the body itself is Markdown.
  media: imagesOnly(1),
  concurrency: { perPlatform: 5 },
  settings: HashnodeSettingsSchema,
  credentials: HashnodeCredentialsSchema,
  tools: [
    { methodName: 'tagsList', description: 'List Hashnode tags to pick from', dataSchema: NoToolDataSchema },
    { methodName: 'publications', description: 'List the publications the account can publish to', dataSchema: NoToolDataSchema },
  ],
  // Each post's views, reactions and responses (lifetime totals).
  analytics: { post: true },
});
