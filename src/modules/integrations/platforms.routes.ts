import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PlatformReadinessSchema } from './platforms.schemas.js';
import type { PlatformsService } from './platforms.service.js';

export function platformsRoutes(service: PlatformsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/platforms',
      {
        schema: {
          tags: ['Integrations'],
          summary: 'The platforms a channel can be connected on, and which are ready on this deployment',
          description:
            "A platform whose OAuth app belongs to the deployment is ready once its variables are set; until then `setup` says what an administrator registers (callback URL, variables, developer console, docs). Variable values are never shown, only whether each is set.",
          response: { 200: z.array(PlatformReadinessSchema) },
        },
      },
      async () => service.listPlatforms(),
    );
  };
}
