import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FeedsService } from './feeds.service.js';
import { CreateFeedBodySchema, DeletedFeedSchema, FeedItemListSchema, FeedItemsQuerySchema, FeedListSchema, FeedParamsSchema, FeedSchema, UpdateFeedBodySchema } from './feeds.schemas.js';

const tags = ['Feeds'];

export function feedsRoutes(service: FeedsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/feeds',
      {
        schema: {
          tags,
          summary: 'Autopost a feed (RSS, Atom, JSON Feed) on channels',
          description:
            'The feed is fetched once to check it (400 naming `url` when it cannot be read or is not a feed). Its current items are recorded as skipped, but the newest `backfill`; every later item is posted once ever, with `template`.',
          body: CreateFeedBodySchema,
          response: { 201: FeedSchema },
        },
      },
      async (req, reply) => reply.status(201).send(await service.createFeed(req.auth.organizationId, req.body)),
    );

    app.get('/feeds', { schema: { tags, summary: "The organisation's feeds", response: { 200: FeedListSchema } } }, async (req) => service.listFeeds(req.auth.organizationId));

    app.get(
      '/feeds/:id',
      { schema: { tags, summary: 'One feed, with its status, last error and next poll', params: FeedParamsSchema, response: { 200: FeedSchema } } },
      async (req) => service.getFeed(req.auth.organizationId, req.params.id),
    );

    app.get(
      '/feeds/:id/items',
      {
        schema: { tags, summary: "The feed's recent items, newest first, with their outcome and posts", params: FeedParamsSchema, querystring: FeedItemsQuerySchema, response: { 200: FeedItemListSchema } },
      },
      async (req) => service.listItems(req.auth.organizationId, req.params.id, req.query.limit),
    );

    app.patch(
      '/feeds/:id',
      { schema: { tags, summary: 'Change a feed (fields given only)', params: FeedParamsSchema, body: UpdateFeedBodySchema, response: { 200: FeedSchema } } },
      async (req) => service.updateFeed(req.auth.organizationId, req.params.id, req.body),
    );

    app.delete(
      '/feeds/:id',
      { schema: { tags, summary: 'Stop autoposting a feed (its posts stay)', params: FeedParamsSchema, response: { 200: DeletedFeedSchema } } },
      async (req) => service.deleteFeed(req.auth.organizationId, req.params.id),
    );

    app.post(
      '/feeds/:id/poll',
      {
        schema: {
          tags,
          summary: 'Poll the feed now',
          description: 'A conditional request as every poll; new items are posted. A failure is recorded on the feed (answered, not an error).',
          params: FeedParamsSchema,
          response: { 200: FeedSchema },
        },
      },
      async (req) => service.pollNow(req.auth.organizationId, req.params.id),
    );
  };
}
