import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { NotificationsService } from './notifications.service.js';
import { PageQuerySchema } from '../../lib/pagination.js';
import { NotificationsPageSchema } from './notifications.schemas.js';

export function notificationsRoutes(service: NotificationsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/notifications',
      {
        schema: {
          tags: ['Notifications'],
          summary: "The organisation's notifications, newest first",
          description: "A signed-in member (the web app) also sees their own (their @mentions in comments); an API key or OAuth token sees the organisation's only.",
          querystring: PageQuerySchema,
          response: { 200: NotificationsPageSchema },
        },
      },
      async (req) => service.listNotifications(req.auth.organizationId, req.query.page, req.auth.session?.userId),
    );
  };
}
