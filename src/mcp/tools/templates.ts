import type { TemplatesService } from '../../modules/templates/templates.service.js';
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
} from '../../modules/templates/templates.schemas.js';
import { defineTool } from '../tool.js';

const TEMPLATE_ID = 'the template id (from list_templates or create_template)';
const SIGNATURE_ID = 'the signature id (from list_signatures or create_signature)';
const TEMPLATE =
  'A template is a partial create_posts body: `posts` (each with an optional `integration.id` channel, `value` items with `content` and media `image` [{id, path}] from the library, optional platform `settings`), optional `type`, `shortLink`, `tags`. ' +
  'Texts may hold placeholders `{{name}}` (letters, digits, `_`), listed in `placeholders`; render_template fills them.';
const SIGNATURE =
  'A signature is text appended after a blank line to the end of a post\'s first item: on demand (apply_signature) or automatically (`autoAdd`) when a template is rendered for its channels (`integrationIds`, empty = every channel). At most one auto-add signature applies to a channel.';

const describeTemplate = (t: { id: string; name: string; placeholders: string[] }) => `${t.name} (id ${t.id})${t.placeholders.length ? `, placeholders: ${t.placeholders.join(', ')}` : ''}`;
const describeSignature = (s: { id: string; name: string; autoAdd: boolean; integrationIds: string[] }) =>
  `${s.name} (id ${s.id})${s.autoAdd ? `, added automatically to ${s.integrationIds.length === 0 ? 'every channel' : `${s.integrationIds.length} channel(s)`}` : ', on demand'}`;

/** Templates and signatures: the tools of `modules/templates/templates.routes.ts`, on the same service methods. */
export function templateTools(templates: TemplatesService) {
  return [
    defineTool({
      name: 'list_templates',
      title: 'List post templates',
      route: 'GET /templates',
      description: `The organisation's saved post templates, by name. ${TEMPLATE}`,
      input: {},
      output: TemplateListSchema,
      outputKey: 'templates',
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx) => templates.listTemplates(ctx.organizationId),
      summary: (list) => `${list.length} template(s): ${list.map(describeTemplate).join('; ') || 'none'}`,
    }),
    defineTool({
      name: 'get_template',
      title: 'Get one post template',
      route: 'GET /templates/:id',
      description: `One post template with its body and placeholders. ${TEMPLATE}`,
      input: { params: IdParamsSchema },
      rename: { 'params.id': 'templateId' },
      hints: { templateId: TEMPLATE_ID },
      output: TemplateSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { params }) => templates.getTemplate(ctx.organizationId, params.id),
      summary: describeTemplate,
    }),
    defineTool({
      name: 'create_template',
      title: 'Save a post template',
      route: 'POST /templates',
      description: `Saves a post template shared by the organisation. ${TEMPLATE} The name is unique in the organisation (case-insensitively); channels (list_channels) and media (list_media) must be the organisation's.`,
      input: { body: CreateTemplateBodySchema },
      hints: { name: 'a label for the person, e.g. "Product launch"' },
      output: TemplateSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      run: (ctx, { body }) => templates.createTemplate(ctx.organizationId, body),
      summary: (t) => `Saved template ${describeTemplate(t)}`,
    }),
    defineTool({
      name: 'update_template',
      title: 'Change a post template',
      route: 'PUT /templates/:id',
      description: `Changes the fields given (others stay); a given \`body\` replaces the whole body. ${TEMPLATE}`,
      input: { params: IdParamsSchema, body: UpdateTemplateBodySchema },
      rename: { 'params.id': 'templateId' },
      hints: { templateId: TEMPLATE_ID },
      output: TemplateSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      run: (ctx, { params, body }) => templates.updateTemplate(ctx.organizationId, params.id, body),
      summary: (t) => `Updated template ${describeTemplate(t)}`,
    }),
    defineTool({
      name: 'delete_template',
      title: 'Delete a post template',
      route: 'DELETE /templates/:id',
      description: 'Deletes a post template; posts made from it stay.',
      input: { params: IdParamsSchema },
      rename: { 'params.id': 'templateId' },
      hints: { templateId: TEMPLATE_ID },
      output: DeletedSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      run: (ctx, { params }) => templates.deleteTemplate(ctx.organizationId, params.id),
      summary: (r) => `Deleted template ${r.id}`,
    }),
    defineTool({
      name: 'render_template',
      title: 'Fill a post template',
      route: 'POST /templates/:id/render',
      description:
        "Answers a body ready for create_posts (send it as is): for each channel of `integrations` (else the channels the template names) the template's entry for it, else its entry for no channel; every `{{name}}` replaced by `values.name` (every placeholder needs a value); each channel's auto-add signature appended. Writes nothing. Give `date` (ISO 8601) to schedule.",
      input: { params: IdParamsSchema, body: RenderBodySchema },
      rename: { 'params.id': 'templateId' },
      hints: { templateId: TEMPLATE_ID, integrations: 'channel ids from list_channels', values: 'e.g. { "product": "Tidings 2" } for {{product}}' },
      output: RenderedSchema,
      // (writes nothing, but a POST: read-only tools are the GET routes)
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      run: (ctx, { params, body }) => templates.renderTemplate(ctx.organizationId, params.id, body),
      summary: (b) => `A create_posts body for ${b.posts.length} channel(s) (${b.type}${b.date ? ` at ${b.date}` : ''}); send it to create_posts`,
    }),
    defineTool({
      name: 'list_signatures',
      title: 'List signatures',
      route: 'GET /signatures',
      description: `The organisation's signatures, by name. ${SIGNATURE}`,
      input: {},
      output: SignatureListSchema,
      outputKey: 'signatures',
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx) => templates.listSignatures(ctx.organizationId),
      summary: (list) => `${list.length} signature(s): ${list.map(describeSignature).join('; ') || 'none'}`,
    }),
    defineTool({
      name: 'create_signature',
      title: 'Create a signature',
      route: 'POST /signatures',
      description: `Creates a signature shared by the organisation. ${SIGNATURE} The name is unique in the organisation.`,
      input: { body: CreateSignatureBodySchema },
      hints: { integrationIds: 'channel ids from list_channels; [] for every channel' },
      output: SignatureSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      run: (ctx, { body }) => templates.createSignature(ctx.organizationId, body),
      summary: (s) => `Created signature ${describeSignature(s)}`,
    }),
    defineTool({
      name: 'update_signature',
      title: 'Change a signature',
      route: 'PUT /signatures/:id',
      description: `Changes the fields given (others stay). ${SIGNATURE}`,
      input: { params: IdParamsSchema, body: UpdateSignatureBodySchema },
      rename: { 'params.id': 'signatureId' },
      hints: { signatureId: SIGNATURE_ID, integrationIds: 'channel ids from list_channels; [] for every channel' },
      output: SignatureSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      run: (ctx, { params, body }) => templates.updateSignature(ctx.organizationId, params.id, body),
      summary: (s) => `Updated signature ${describeSignature(s)}`,
    }),
    defineTool({
      name: 'delete_signature',
      title: 'Delete a signature',
      route: 'DELETE /signatures/:id',
      description: 'Deletes a signature; posts that already carry its text keep it.',
      input: { params: IdParamsSchema },
      rename: { 'params.id': 'signatureId' },
      hints: { signatureId: SIGNATURE_ID },
      output: DeletedSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      run: (ctx, { params }) => templates.deleteSignature(ctx.organizationId, params.id),
      summary: (r) => `Deleted signature ${r.id}`,
    }),
    defineTool({
      name: 'apply_signature',
      title: 'Append a signature to a text',
      route: 'POST /signatures/:id/apply',
      description: 'Answers `content` with the signature appended after a blank line (unchanged if it already ends with it). Writes nothing.',
      input: { params: IdParamsSchema, body: ApplyBodySchema },
      rename: { 'params.id': 'signatureId' },
      hints: { signatureId: SIGNATURE_ID, integrationId: 'the channel the text is for (from list_channels), optional' },
      output: AppliedSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      run: (ctx, { params, body }) => templates.applySignature(ctx.organizationId, params.id, body),
      summary: (r) => r.content,
    }),
  ];
}
