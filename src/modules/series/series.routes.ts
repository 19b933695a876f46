import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../http/error-schema.js';
import type { SeriesService } from './series.service.js';
import {
  CreateSeriesBodySchema,
  CreateSeriesResponseSchema,
  DeleteSeriesResponseSchema,
  SeriesDetailSchema,
  SeriesParamsSchema,
  SeriesSchema,
  UpdateSeriesBodySchema,
} from './series.schemas.js';

export function seriesRoutes(service: SeriesService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/series',
      {
        schema: {
          tags: ['Series'],
          summary: 'Extension: create a repeating post (a series) and its first occurrences',
          description:
            'The body is that of POST /posts with a `rule` instead of `date`. Each occurrence is a real post (own id, state, analytics), created ahead for a rolling horizon (30 days, at least the next one) and linked by `seriesId`. Times are local to `rule.timeZone` (09:00 Europe/Berlin stays 09:00 across DST).',
          body: CreateSeriesBodySchema,
          response: { 201: CreateSeriesResponseSchema, ...errorResponses('PLAN_LIMIT_REACHED') },
        },
      },
      async (req, reply) => reply.status(201).send(await service.createSeries(req.auth.organizationId, req.body)),
    );

    app.get(
      '/series',
      { schema: { tags: ['Series'], summary: 'Extension: the repeating posts (series) of the organisation, newest first', response: { 200: z.object({ series: z.array(SeriesSchema) }) } } },
      async (req) => service.listSeries(req.auth.organizationId),
    );

    app.get(
      '/series/:id',
      {
        schema: {
          tags: ['Series'],
          summary: 'Extension: one series with its rule, counts and next occurrences (and why it stopped, when broken)',
          params: SeriesParamsSchema,
          response: { 200: SeriesDetailSchema },
        },
      },
      async (req) => service.getSeries(req.auth.organizationId, req.params.id),
    );

    app.patch(
      '/series/:id',
      {
        schema: {
          tags: ['Series'],
          summary: 'Extension: change "this and following" occurrences: the series ends before `fromPostId` and a new one starts there',
          description: 'To change one occurrence only, edit its post as any other (POST /posts with its group and ids, or the /posts/{id} routes): the series never re-creates it.',
          params: SeriesParamsSchema,
          body: UpdateSeriesBodySchema,
          response: {
            200: CreateSeriesResponseSchema.extend({ endedSeriesId: z.string(), deleted: z.array(z.string()).describe('unpublished occurrences of the old series removed') }),
            ...errorResponses('PLAN_LIMIT_REACHED', 'CONFLICT'),
          },
        },
      },
      async (req) => service.updateFollowing(req.auth.organizationId, req.params.id, req.body),
    );

    app.delete(
      '/series/:id',
      {
        schema: {
          tags: ['Series'],
          summary: 'Extension: delete a series and its unpublished occurrences (published ones stay, with their history)',
          params: SeriesParamsSchema,
          response: { 200: DeleteSeriesResponseSchema, ...errorResponses('CONFLICT') },
        },
      },
      async (req) => service.deleteSeries(req.auth.organizationId, req.params.id),
    );
  };
}
