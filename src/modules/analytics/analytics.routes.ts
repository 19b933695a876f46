import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses, PLATFORM_CALL_ERRORS } from '../../http/error-schema.js';
import type { AnalyticsService } from './analytics.service.js';
import { AnalyticsDaysQuerySchema, AnalyticsSeriesSchema, ChannelAnalyticsParamsSchema, PostAnalyticsParamsSchema, PostAnalyticsSchema } from './analytics.schemas.js';

export function analyticsRoutes(service: AnalyticsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/analytics/:integrationId',
      {
        schema: {
          tags: ['Analytics'],
          summary: "A channel's figures over the last N days ([] where the platform reports none)",
          params: ChannelAnalyticsParamsSchema,
          querystring: AnalyticsDaysQuerySchema,
          response: { 200: AnalyticsSeriesSchema, ...errorResponses(...PLATFORM_CALL_ERRORS) },
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
          params: PostAnalyticsParamsSchema,
          querystring: AnalyticsDaysQuerySchema,
          response: { 200: PostAnalyticsSchema, ...errorResponses(...PLATFORM_CALL_ERRORS) },
        },
      },
      async (req) => service.postAnalytics(req.auth.organizationId, req.params.postId, req.query.date),
    );
  };
}
