import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses, PLATFORM_CALL_ERRORS } from '../../http/error-schema.js';
import type { AnalyticsService } from './analytics.service.js';
import { z } from 'zod';
import { AnalyticsDaysQuerySchema, AnalyticsOverviewQuerySchema, AnalyticsOverviewSchema, AnalyticsSeriesSchema, ChannelAnalyticsParamsSchema, PostAnalyticsParamsSchema, PostAnalyticsSchema } from './analytics.schemas.js';

export function analyticsRoutes(service: AnalyticsService): FastifyPluginAsyncZod {
  return async (app) => {
    // Registered before `/analytics/:integrationId`; find-my-way prefers the static paths anyway.
    app.get(
      '/analytics/overview',
      {
        schema: {
          tags: ['Analytics'],
          summary: 'Every channel over the last 7, 30 or 90 days: posts published, reach, impressions and engagement (null where the platform reports none), and the best and worst posts',
          querystring: AnalyticsOverviewQuerySchema,
          response: { 200: AnalyticsOverviewSchema },
        },
      },
      async (req) => service.overview(req.auth.organizationId, req.query.days),
    );

    app.get(
      '/analytics/overview.csv',
      {
        schema: {
          tags: ['Analytics'],
          summary: 'The overview as CSV: a header row, then one row per channel ("not reported" where the platform reports nothing)',
          querystring: AnalyticsOverviewQuerySchema,
          // only the success is CSV: refusals keep the one JSON error body
          response: { 200: { description: 'the overview as CSV', content: { 'text/csv': { schema: z.string() } } } },
        },
      },
      async (req, reply) => {
        const csv = await service.overviewCsv(req.auth.organizationId, req.query.days);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="analytics-overview-${req.query.days}-days.csv"`)
          .send(csv);
      },
    );

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
