import { z } from 'zod';
import { MediaRefSchema, requiredString, HttpUrl, NoToolDataSchema, requiredSecret } from '../common/schemas.js';
import { defineMetadata, imagesOnly } from '../common/define-metadata.js';

/**
 * WordPress post settings (reference WordpressDto). Extensions beyond the reference: status
 * `future` with its `date` (WordPress publishes a `future` post without a later date at once).
 */
export const WordpressSettingsSchema = z
  .object({
    title: z.string().min(2),
    main_image: MediaRefSchema.optional().describe('featured image, uploaded to the media library first'),
    type: requiredString().describe('post type (its REST base: "posts", "pages" or a custom type)'),
    categories: z.array(z.number().int().positive()).optional().describe('category ids (categoriesList tool)'),
    tags: z.array(z.number().int().positive()).optional().describe('tag ids (tagsList tool)'),
    status: z.enum(['publish', 'draft', 'pending', 'private', 'future']).optional(),
    date: z.iso.datetime({ offset: true }).optional().describe('publication date of a `future` post (ISO 8601)'),
  })
  .superRefine((s, ctx) => {
    if (s.status === 'future' && !s.date) ctx.addIssue({ code: 'custom', path: ['date'], message: 'A scheduled (future) post needs its date' });
  });

/** `POST /social/wordpress`: a self-hosted site and an application password of one of its users. */
export const WordpressCredentialsSchema = z.object({
  siteUrl: z.string({ error: 'Required' }).trim().min(1, 'Required').pipe(HttpUrl).describe('site address, e.g. https://blog.example.com'),
  username: requiredSecret('WordPress user name'),
  applicationPassword: requiredSecret('application password (Users → Profile → Application Passwords)'),
});

export const wordpressMetadata = defineMetadata({
  identifier: 'wordpress',
  displayName: 'WordPress',
  authKind: 'credentials',
  instanceBased: true,
  editor: 'html',
  text: { maxLength: 100_000, counting: 'characters' },
  // Pictures are uploaded to the media library and placed in the article; the cover is `main_image`.
  media: imagesOnly(10),
  concurrency: { perPlatform: 5 },
  settings: WordpressSettingsSchema,
  credentials: WordpressCredentialsSchema,
  tools: [
    { methodName: 'postTypes', description: 'Post types of the site', dataSchema: NoToolDataSchema },
    { methodName: 'categoriesList', description: 'Categories of the site', dataSchema: NoToolDataSchema },
    { methodName: 'tagsList', description: 'Tags of the site', dataSchema: NoToolDataSchema },
    // Shorter names for the same lists.
    { methodName: 'categories', description: 'Categories of the site (same as categoriesList)', dataSchema: NoToolDataSchema },
    { methodName: 'tags', description: 'Tags of the site (same as tagsList)', dataSchema: NoToolDataSchema },
  ],
});
