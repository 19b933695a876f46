import { z } from 'zod';
import { IMAGE_TYPES, MediaRefSchema, requiredString } from '../common/schemas.js';
import { HttpUrl, NoToolDataSchema, requiredSecret } from '../common/schemas-b.js';
import type { PlatformMetadata } from '../platform.js';

/** WordPress post settings (reference WordpressDto). */
export const WordpressSettingsSchema = z.object({
  title: z.string().min(2),
  main_image: MediaRefSchema.optional(),
  type: requiredString().describe('post type (its REST base, usually "posts")'),
  categories: z.array(z.number()).optional(),
  tags: z.array(z.number()).optional(),
  status: z.enum(['publish', 'draft', 'pending', 'private']).optional(),
});

/** `POST /social/wordpress`: a self-hosted site and an application password of one of its users. */
export const WordpressCredentialsSchema = z.object({
  siteUrl: z.string({ error: 'Required' }).trim().min(1, 'Required').pipe(HttpUrl).describe('site address, e.g. https://blog.example.com'),
  username: requiredSecret('WordPress user name'),
  applicationPassword: requiredSecret('application password (Users → Profile → Application Passwords)'),
});

export const wordpressMetadata: PlatformMetadata = {
  identifier: 'wordpress',
  displayName: 'WordPress',
  authKind: 'credentials',
  instanceBased: true,
  editor: 'html',
  text: { maxLength: 100_000, counting: 'characters' },
  // Pictures are uploaded to the media library and placed in the article; the cover is `main_image`.
  media: {
    minItems: 0,
    maxItems: 10,
    image: { maxCount: 10, mimeTypes: IMAGE_TYPES },
    mixed: false,
    onThreadItems: false,
  },
  thread: { supported: false },
  asyncProcessing: false,
  concurrency: { perPlatform: 5, perChannel: 1 },
  settings: WordpressSettingsSchema,
  credentials: WordpressCredentialsSchema,
  tools: [
    { methodName: 'postTypes', description: 'Post types of the site', dataSchema: NoToolDataSchema },
    { methodName: 'categoriesList', description: 'Categories of the site', dataSchema: NoToolDataSchema },
    { methodName: 'tagsList', description: 'Tags of the site', dataSchema: NoToolDataSchema },
  ],
  rules: '',
  analytics: { channel: false, post: false },
};
