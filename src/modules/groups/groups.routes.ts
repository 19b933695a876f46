import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorResponses } from '../../http/error-schema.js';
import type { GroupsService } from './groups.service.js';
import { GroupSchema } from './groups.schemas.js';

export function groupsRoutes(service: GroupsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/groups',
      {
        schema: {
          tags: ['Groups'],
          summary: 'List client groups ("customers")',
          response: { 200: z.array(GroupSchema), ...ErrorResponses },
        },
      },
      async (req) => service.listGroups(req.auth.organizationId),
    );
  };
}
