import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ActivityService } from './activity.service.js';
import { ActivityPageSchema, ActivityQuerySchema } from './activity.schemas.js';

const tags = ['Activity'];

export function activityRoutes(service: ActivityService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/activity',
      {
        schema: {
          tags,
          summary: 'The activity log: who did what to which post, channel, key, webhook or member, and when',
          description:
            'Newest first, `limit` entries a page (at most 100) and `nextCursor` for the next. Filters: a time range (`from` inclusive, `to` exclusive), the actor (`actorKind`, `actorId`), the action (exact, or a prefix ending in `.` or `*`), the target (`targetKind`, `targetId`). Entries are kept at least 90 days and never hold secrets.',
          querystring: ActivityQuerySchema,
          response: { 200: ActivityPageSchema },
        },
      },
      async (req) => service.list(req.auth.organizationId, req.query),
    );
  };
}
