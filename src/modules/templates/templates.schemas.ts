import { z } from 'zod';
import { InstantSchema, POST_TYPES } from '../posts/posts.schemas.js';

/** A placeholder in a template's text: `{{name}}`, the name of letters, digits and `_`. */
export const PLACEHOLDER_RE = /\{\{([A-Za-z0-9_]+)\}\}/g;

const name = z.string().trim().min(1, 'Required').max(100).describe('unique in the organisation (case-insensitively), 1..100 characters');

const TemplateImageSchema = z.object({
  id: z.string().min(1).max(100).describe('media id from the library'),
  path: z.string().max(2000).describe('the media URL the service gave it'),
});

const TemplateValueSchema = z.object({
  content: z.string().max(100_000).describe('the text; `{{name}}` marks a placeholder filled when the template is rendered'),
  image: z.array(TemplateImageSchema).max(50).optional(),
});

const TemplatePostSchema = z.object({
  integration: z.object({ id: z.string().min(1, 'Required').max(100) }).optional().describe('the channel this entry is for; absent: used for every channel chosen at render time'),
  value: z.array(TemplateValueSchema).min(1, 'At least one item').max(100).describe('the first item and the thread items after it'),
  settings: z.record(z.string(), z.unknown()).optional().describe("platform settings (field names per platform); absent: the channel's saved defaults"),
});

/** A partial create-posts body (`POST /posts`): what a template holds. */
export const TemplateBodySchema = z
  .object({
    type: z.enum(POST_TYPES).optional().describe('the post type the render answers by default'),
    shortLink: z.boolean().optional(),
    tags: z.array(z.object({ value: z.string().max(200), label: z.string().max(200) })).max(50).optional(),
    posts: z.array(TemplatePostSchema).min(1, 'At least one post').max(50).describe('one entry per channel, or one for every channel (no `integration`)'),
  })
  .meta({ id: 'TemplateBody' });
export type TemplateBody = z.infer<typeof TemplateBodySchema>;

export const CreateTemplateBodySchema = z.object({
  name,
  description: z.string().trim().max(1000).optional().describe('what the template is for (default empty)'),
  body: TemplateBodySchema.describe('the partial create-posts body the template holds'),
});
export type CreateTemplateBody = z.infer<typeof CreateTemplateBodySchema>;

export const UpdateTemplateBodySchema = z.object({
  name: name.optional(),
  description: z.string().trim().max(1000).optional().describe('what the template is for'),
  body: TemplateBodySchema.optional().describe('replaces the whole body'),
});
export type UpdateTemplateBody = z.infer<typeof UpdateTemplateBodySchema>;

export const TemplateSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    body: TemplateBodySchema,
    placeholders: z.array(z.string()).describe('the placeholder names in its texts (`{{name}}`), in order of first appearance'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'PostTemplate' });
export const TemplateListSchema = z.array(TemplateSchema);

export const RenderBodySchema = z.object({
  values: z.record(z.string(), z.string().max(100_000)).default({}).describe('the text of each placeholder, by name'),
  integrations: z.array(z.string().max(100)).max(50).optional().describe("channel ids to post to: the template's entry for that channel, else its entry without a channel; absent: the channels the template names"),
  date: InstantSchema.optional().describe('when to publish (copied into the answer)'),
  type: z.enum(POST_TYPES).optional().describe("default: the template's type, else `schedule`"),
});
export type RenderBody = z.infer<typeof RenderBodySchema>;

export const RenderedSchema = z.object({
  type: z.enum(POST_TYPES),
  date: z.string().optional(),
  shortLink: z.boolean(),
  tags: z.array(z.object({ value: z.string(), label: z.string() })),
  posts: z.array(
    z.object({
      integration: z.object({ id: z.string() }),
      value: z.array(z.object({ content: z.string(), image: z.array(z.object({ id: z.string(), path: z.string() })) })),
      settings: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
}).describe('a body ready for POST /posts: placeholders filled and auto-add signatures appended per channel');

const signatureFields = {
  name,
  content: z.string().trim().min(1, 'Required').max(2000).describe('the text appended, 1..2000 characters'),
  autoAdd: z.boolean().describe("appended automatically to the first item of new posts on its channels (at most one auto-add signature per channel)"),
  integrationIds: z.array(z.string().max(100)).max(1000).describe('the channels it is added to automatically; empty = every channel'),
};

export const CreateSignatureBodySchema = z.object({
  name: signatureFields.name,
  content: signatureFields.content,
  autoAdd: signatureFields.autoAdd.default(false).describe('default false'),
  integrationIds: signatureFields.integrationIds.default([]).describe('default [] (every channel)'),
});
export type CreateSignatureBody = z.infer<typeof CreateSignatureBodySchema>;

export const UpdateSignatureBodySchema = z.object({
  name: signatureFields.name.optional(),
  content: signatureFields.content.optional(),
  autoAdd: signatureFields.autoAdd.optional(),
  integrationIds: signatureFields.integrationIds.optional(),
});
export type UpdateSignatureBody = z.infer<typeof UpdateSignatureBodySchema>;

export const SignatureSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    content: z.string(),
    autoAdd: z.boolean(),
    integrationIds: z.array(z.string()),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Signature' });
export const SignatureListSchema = z.array(SignatureSchema);

export const ApplyBodySchema = z.object({
  content: z.string().max(100_000).describe('the text to sign'),
  integrationId: z.string().max(100).optional().describe('the channel the text is for (must be a channel of the organisation)'),
});
export const AppliedSchema = z.object({ content: z.string().describe('the text with the signature at its end (unchanged if it already ended with it)') });

export const IdParamsSchema = z.object({ id: z.string() });
export const DeletedSchema = z.object({ id: z.string(), deleted: z.literal(true) });
