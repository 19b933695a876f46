import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorResponses } from '../../http/error-schema.js';
import type { IntegrationsService } from './integrations.service.js';
import { IntegrationSchema, IsConnectedSchema, ListIntegrationsQuerySchema } from './integrations.schemas.js';

export function integrationsRoutes(service: IntegrationsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/integrations',
      {
        schema: {
          tags: ['Integrations'],
          summary: 'List the channels of the organisation',
          description: 'Disabled and refresh-needed channels included. `customer` (alias `group`) filters by client group.',
          querystring: ListIntegrationsQuerySchema,
          response: { 200: z.array(IntegrationSchema), ...ErrorResponses },
        },
      },
      async (req) => service.listIntegrations(req.auth.organizationId, req.query.customer ?? req.query.group),
    );

    app.get(
      '/is-connected',
      {
        schema: {
          tags: ['Integrations'],
          summary: 'Whether any channel could publish right now',
          response: { 200: IsConnectedSchema, ...ErrorResponses },
        },
      },
      async (req) => service.isConnected(req.auth.organizationId),
    );
  };
}
