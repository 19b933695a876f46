import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses, PLATFORM_CALL_ERRORS } from '../../http/error-schema.js';
import { IntegrationParamsSchema, IntegrationSchema, SelectAccountBodySchema, ToolOutputSchema, TriggerToolBodySchema } from './integrations.schemas.js';
import type { ToolsService } from './tools.service.js';

export function toolsRoutes(service: ToolsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/integration-trigger/:id',
      {
        schema: {
          tags: ['Integrations'],
          summary: "Run a platform tool on the channel (list boards, channels, flairs…)",
          description: 'The tools of a channel and their `data` are listed by `GET /integration-settings/{id}`.',
          params: IntegrationParamsSchema,
          body: TriggerToolBodySchema,
          response: { 200: ToolOutputSchema, ...errorResponses(...PLATFORM_CALL_ERRORS) },
        },
      },
      async (req) => service.runTool(req.auth.organizationId, req.params.id, req.body.methodName, req.body.data),
    );

    app.put(
      '/integrations/:id/account',
      {
        schema: {
          tags: ['Integrations'],
          summary: 'Switch the channel to another account its connection reaches (e.g. another LinkedIn page)',
          description: 'The accounts are listed by the platform tool (`pages` for linkedin-page).',
          params: IntegrationParamsSchema,
          body: SelectAccountBodySchema,
          response: { 200: IntegrationSchema, ...errorResponses('CONFLICT', ...PLATFORM_CALL_ERRORS) },
        },
      },
      async (req) => service.selectAccount(req.auth.organizationId, req.params.id, req.body.id),
    );
  };
}
