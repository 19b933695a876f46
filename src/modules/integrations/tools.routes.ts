import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorResponses } from '../../http/error-schema.js';
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
          response: { 200: z.object({ output: z.unknown() }), ...ErrorResponses },
        },
      },
      async (req) => service.runTool(req.auth.organizationId, req.params.id, req.body.methodName, req.body.data),
    );
  };
}
