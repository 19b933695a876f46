import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors.js';
import { errorResponses } from '../../http/error-schema.js';
import type { PreviewsService } from './previews.service.js';
import { CreatedPreviewLinkSchema, CreatePreviewLinkBodySchema, ListPreviewLinksQuerySchema, PreviewLinkListSchema, PreviewLinkParamsSchema } from './previews.schemas.js';

const tags = ['Preview links'];
const ABOUT =
  'A preview link shows one post group, or the posts of a date range, to someone without an account (a client): `<PUBLIC_URL>/preview/<token>`. The token is shown once; expired or revoked links show nothing.';

/**
 * A sandbox key (`tdk_test_…`) sees sandbox channels only, and a link shows whatever the
 * organisation posted: it cannot manage them.
 */
function refuseSandbox(req: FastifyRequest) {
  if (req.auth.sandbox) throw new AppError('FORBIDDEN', 'A sandbox key cannot share or list preview links: use a live key or the web app');
}

/**
 * Preview links (issue 31), the management side under /public/v1; the holder's side is
 * `previews.public-routes.ts`.
 */
export function previewsRoutes(service: PreviewsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/preview-links',
      {
        schema: {
          tags,
          summary: 'Share posts for review: create a preview link',
          description: `${ABOUT} \`allowApproval\` lets the holder approve or request changes by name: only an owner or admin (or an approver named in an approval rule, or an API key exempted from approval) may give it (403 otherwise). A group with no post of the organisation, or a client group that is not the organisation's, is a 400 naming the field.`,
          body: CreatePreviewLinkBodySchema,
          response: { 201: CreatedPreviewLinkSchema, ...errorResponses('FORBIDDEN') },
        },
      },
      async (req, reply) => {
        refuseSandbox(req);
        return reply.status(201).send(await service.createLink(req.auth.organizationId, req.body));
      },
    );

    app.get(
      '/preview-links',
      {
        schema: {
          tags,
          summary: "The organisation's preview links, newest first",
          description: `${ABOUT} Each with its \`status\` (active, expired or revoked) and when it was last opened; never the token.`,
          querystring: ListPreviewLinksQuerySchema,
          response: { 200: PreviewLinkListSchema, ...errorResponses('FORBIDDEN') },
        },
      },
      async (req) => {
        refuseSandbox(req);
        return service.listLinks(req.auth.organizationId, req.query.group);
      },
    );

    app.delete(
      '/preview-links/:id',
      {
        schema: {
          tags,
          summary: 'Revoke a preview link',
          description: 'The link shows nothing from now on (its holder gets a 404); it stays in the list as revoked. Revoking it again changes nothing.',
          params: PreviewLinkParamsSchema,
          response: { 204: z.null().describe('Revoked'), ...errorResponses('NOT_FOUND', 'FORBIDDEN') },
        },
      },
      async (req, reply) => {
        refuseSandbox(req);
        await service.revokeLink(req.auth.organizationId, req.params.id);
        return reply.status(204).send(null);
      },
    );
  };
}
