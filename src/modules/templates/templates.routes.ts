import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/error-schema.js';
import type { TemplatesService } from './templates.service.js';
import {
  AppliedSchema,
  ApplyBodySchema,
  CreateSignatureBodySchema,
  CreateTemplateBodySchema,
  DeletedSchema,
  IdParamsSchema,
  RenderBodySchema,
  RenderedSchema,
  SignatureListSchema,
  SignatureSchema,
  TemplateListSchema,
  TemplateSchema,
  UpdateSignatureBodySchema,
  UpdateTemplateBodySchema,
} from './templates.schemas.js';

const templateTags = ['Templates'];
const signatureTags = ['Signatures'];

export function templatesRoutes(service: TemplatesService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/templates',
      { schema: { tags: templateTags, summary: "The organisation's post templates, by name", response: { 200: TemplateListSchema } } },
      async (req) => service.listTemplates(req.auth.organizationId),
    );

    app.post(
      '/templates',
      {
        schema: {
          tags: templateTags,
          summary: 'Save a post template',
          description:
            "A template is a partial `POST /posts` body (posts with or without a channel, their items' text and media, settings, type, tags) whose texts may hold `{{placeholders}}` (letters, digits, `_`). Channels and media must be the organisation's (a 400 names the field); a name used already (case-insensitively) is a 409 naming `name`.",
          body: CreateTemplateBodySchema,
          response: { 201: TemplateSchema, ...errorResponses('CONFLICT') },
        },
      },
      async (req, reply) => reply.status(201).send(await service.createTemplate(req.auth.organizationId, req.body, req.auth.session?.userId)),
    );

    app.get(
      '/templates/:id',
      { schema: { tags: templateTags, summary: 'One post template', params: IdParamsSchema, response: { 200: TemplateSchema } } },
      async (req) => service.getTemplate(req.auth.organizationId, req.params.id),
    );

    app.put(
      '/templates/:id',
      {
        schema: {
          tags: templateTags,
          summary: 'Change a post template (fields given only; `body` is replaced whole)',
          params: IdParamsSchema,
          body: UpdateTemplateBodySchema,
          response: { 200: TemplateSchema, ...errorResponses('CONFLICT') },
        },
      },
      async (req) => service.updateTemplate(req.auth.organizationId, req.params.id, req.body),
    );

    app.delete(
      '/templates/:id',
      { schema: { tags: templateTags, summary: 'Delete a post template (posts made from it stay)', params: IdParamsSchema, response: { 200: DeletedSchema } } },
      async (req) => service.deleteTemplate(req.auth.organizationId, req.params.id),
    );

    app.post(
      '/templates/:id/render',
      {
        schema: {
          tags: templateTags,
          summary: 'Fill a template into a body ready for POST /posts',
          description:
            "Answers a `POST /posts` body: for each channel of `integrations` (else the channels the template names) the template's entry for that channel, else its entry for no channel in particular; every `{{name}}` replaced by `values.name` (a missing one is a 400 naming `values.<name>`); the channel's auto-add signature appended to the first item. Writes nothing: send the answer to POST /posts.",
          params: IdParamsSchema,
          body: RenderBodySchema,
          response: { 200: RenderedSchema },
        },
      },
      async (req) => service.renderTemplate(req.auth.organizationId, req.params.id, req.body),
    );

    app.get(
      '/signatures',
      { schema: { tags: signatureTags, summary: "The organisation's signatures, by name", response: { 200: SignatureListSchema } } },
      async (req) => service.listSignatures(req.auth.organizationId),
    );

    app.post(
      '/signatures',
      {
        schema: {
          tags: signatureTags,
          summary: 'Create a signature',
          description:
            'A signature is text appended to the end of a post\'s first item: on demand (`POST /signatures/{id}/apply`), or automatically (`autoAdd`) when a template is rendered for its channels (`integrationIds`, empty = every channel) and when the web app composes a post. At most one auto-add signature applies to a channel: an overlapping one is a 409 naming `integrationIds`; a name used already is a 409 naming `name`.',
          body: CreateSignatureBodySchema,
          response: { 201: SignatureSchema, ...errorResponses('CONFLICT') },
        },
      },
      async (req, reply) => reply.status(201).send(await service.createSignature(req.auth.organizationId, req.body)),
    );

    app.put(
      '/signatures/:id',
      {
        schema: {
          tags: signatureTags,
          summary: 'Change a signature (fields given only)',
          params: IdParamsSchema,
          body: UpdateSignatureBodySchema,
          response: { 200: SignatureSchema, ...errorResponses('CONFLICT') },
        },
      },
      async (req) => service.updateSignature(req.auth.organizationId, req.params.id, req.body),
    );

    app.delete(
      '/signatures/:id',
      { schema: { tags: signatureTags, summary: 'Delete a signature', params: IdParamsSchema, response: { 200: DeletedSchema } } },
      async (req) => service.deleteSignature(req.auth.organizationId, req.params.id),
    );

    app.post(
      '/signatures/:id/apply',
      {
        schema: {
          tags: signatureTags,
          summary: 'Append a signature to a text',
          description: 'Answers `content` with the signature at its end after a blank line; a text already ending with it is answered unchanged (never doubled). Writes nothing.',
          params: IdParamsSchema,
          body: ApplyBodySchema,
          response: { 200: AppliedSchema },
        },
      },
      async (req) => service.applySignature(req.auth.organizationId, req.params.id, req.body),
    );
  };
}
