import { z } from 'zod';
import { MediaRefSchema, NoToolDataSchema, requiredSecret, requiredText } from '../common/schemas.js';
import { defineMetadata, imagesOnly } from '../common/define-metadata.js';

/** `POST /social/devto`: a DEV API key (dev.to → Settings → Extensions); it never expires. */
export const DevtoCredentialsSchema = z.object({
  apiKey: requiredSecret().describe('DEV API key, sent as the `api-key` header'),
});

/** DEV article settings (reference DevToSettingsDto). Tag values are DEV's numeric tag ids. */
export const DevtoSettingsSchema = z.object({
  title: requiredText(2),
  main_image: MediaRefSchema.optional(),
  canonical: z.url().optional(),
  organization: z.string().optional(),
  /** DEV series name: articles with the same series are listed together (issue 17; not in the reference DTO). */
  series: z.string().trim().min(1, 'Must not be empty').max(128, 'At most 128 characters').optional(),
  tags: z
    .array(z.object({ value: z.number(), label: z.string() }))
    .max(4, 'At most 4 tags')
    .default([]),
});

export const devtoMetadata = defineMetadata({
  identifier: 'devto',
  displayName: 'Dev.to',
  appName: 'DEV',
  authKind: 'credentials',
  editor: 'markdown',
  // DEV publishes no body limit; the reference caps articles at 100,000 characters.
  text: { maxLength: 100_000, counting: 'characters' },
  // DEV takes one cover picture (as a URL); the body is Markdown, so there is nothing else to attach.
  media: imagesOnly(1),
  // The DEV API cannot create comments.
  thread: { supported: false },
  // Article creation is throttled (about 10 per 30 s is commonly cited).
  concurrency: { perPlatform: 2 },
  settings: DevtoSettingsSchema,
  credentials: DevtoCredentialsSchema,
  tools: [
    { methodName: 'tags', description: 'List DEV tags to pick from', dataSchema: NoToolDataSchema },
    { methodName: 'organizations', description: 'List the DEV organizations the account can publish under', dataSchema: NoToolDataSchema },
  ],
  // DEV reports each article's views, reactions and comments (lifetime totals) to its author.
  analytics: { post: true },
});
