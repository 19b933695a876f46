import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, PLATFORM_CALL_ERRORS } from '../../http/error-schema.js';
import type { AnalyticsService } from './analytics.service.js';

const SeriesSchema = z
  .array(z.object({ label: z.string(), percentageChange: z.number(), data: z.array(z.object({ total: z.union([z.number(), z.string()]), date: z.string() })) }))
  .meta({ id: 'Analytics' });

const DaysQuery = z.object({ date: z.coerce.number().int().min(1).max(365).describe('days to look back') });

export function analyticsRoutes(service: AnalyticsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/analytics/:integrationId',
      {
        schema: {
          tags: ['Analytics'],
          summary: "A channel's figures over the last N days ([] where the platform reports none)",
          params: z.object({ integrationId: z.string() }),
          querystring: DaysQuery,
          response: { 200: SeriesSchema, ...errorResponses(...PLATFORM_CALL_ERRORS) },
        },
      },
      async (req) => service.channelAnalytics(req.auth.organizationId, req.params.integrationId, req.query.date),
    );

    app.get(
      '/analytics/post/:postId',
      {
        schema: {
          tags: ['Analytics'],
          summary: "A published post's figures; { missing: true } when its platform id is unknown",
          params: z.object({ postId: z.string() }),
          querystring: DaysQuery,
          response: { 200: z.union([SeriesSchema, z.object({ missing: z.literal(true) })]), ...errorResponses(...PLATFORM_CALL_ERRORS) },
        },
      },
      async (req) => service.postAnalytics(req.auth.organizationId, req.params.postId, req.query.date),
    );
  };
}
