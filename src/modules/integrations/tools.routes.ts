import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, PLATFORM_CALL_ERRORS } from '../../http/error-schema.js';
import { IntegrationSchema } from './integrations.schemas.js';
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
          params: z.object({ id: z.string() }),
          body: z.object({ methodName: z.string().min(1), data: z.record(z.string(), z.unknown()).optional() }),
          response: { 200: z.object({ output: z.unknown() }), ...errorResponses(...PLATFORM_CALL_ERRORS) },
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
          params: z.object({ id: z.string() }),
          body: z.object({ id: z.string().min(1).describe("the account's id on the platform") }),
          response: { 200: IntegrationSchema, ...errorResponses('CONFLICT', ...PLATFORM_CALL_ERRORS) },
        },
      },
      async (req) => service.selectAccount(req.auth.organizationId, req.params.id, req.body.id),
    );
  };
}
