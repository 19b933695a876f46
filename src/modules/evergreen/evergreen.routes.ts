import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/error-schema.js';
import type { EvergreenService } from './evergreen.service.js';
import {
  ChannelParamsSchema,
  CreateItemBodySchema,
  CreateQueueBodySchema,
  DeletedItemSchema,
  DeletedQueueSchema,
  FillResultSchema,
  ItemListSchema,
  ItemParamsSchema,
  ItemSchema,
  PlanQuerySchema,
  PlanSchema,
  QueueListSchema,
  QueueParamsSchema,
  QueueSchema,
  UpdateItemBodySchema,
  UpdateQueueBodySchema,
} from './evergreen.schemas.js';

const tags = ['Evergreen'];

export function evergreenRoutes(service: EvergreenService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/evergreen',
      {
        schema: {
          tags,
          summary: 'Create an evergreen queue',
          description:
            "A queue holds posts to recycle: Tidings fills each of its channels' free posting-time slots (`postingTimes` of the channel) up to `horizonDays` ahead, never repeating an item on a channel within `minGapDays`. Unknown channel ids are named in a 400.",
          body: CreateQueueBodySchema,
          response: { 201: QueueSchema },
        },
      },
      async (req, reply) => reply.status(201).send(await service.createQueue(req.auth.organizationId, req.body)),
    );

    app.get(
      '/evergreen',
      { schema: { tags, summary: "The organisation's evergreen queues", response: { 200: QueueListSchema } } },
      async (req) => service.listQueues(req.auth.organizationId),
    );

    app.get(
      '/evergreen/:id',
      { schema: { tags, summary: 'One evergreen queue, with its paused channels', params: QueueParamsSchema, response: { 200: QueueSchema } } },
      async (req) => service.getQueue(req.auth.organizationId, req.params.id),
    );

    app.patch(
      '/evergreen/:id',
      { schema: { tags, summary: 'Change an evergreen queue (fields given only)', params: QueueParamsSchema, body: UpdateQueueBodySchema, response: { 200: QueueSchema } } },
      async (req) => service.updateQueue(req.auth.organizationId, req.params.id, req.body),
    );

    app.delete(
      '/evergreen/:id',
      {
        schema: {
          tags,
          summary: 'Delete an evergreen queue',
          description: 'The posts it already created stay scheduled; delete them as posts.',
          params: QueueParamsSchema,
          response: { 200: DeletedQueueSchema },
        },
      },
      async (req) => service.deleteQueue(req.auth.organizationId, req.params.id),
    );

    app.post(
      '/evergreen/:id/items',
      {
        schema: {
          tags,
          summary: 'Add an item (a post to recycle) at the end of the queue',
          description: "Checked against the platform rules of each channel of the queue (text length in the platform's counting, media, settings): a 400 names `content`, `variations.N`, `media.N` or `settings.<platform>…`.",
          params: QueueParamsSchema,
          body: CreateItemBodySchema,
          response: { 201: ItemSchema },
        },
      },
      async (req, reply) => reply.status(201).send(await service.addItem(req.auth.organizationId, req.params.id, req.body)),
    );

    app.get(
      '/evergreen/:id/items',
      { schema: { tags, summary: 'The items of a queue, by position', params: QueueParamsSchema, response: { 200: ItemListSchema } } },
      async (req) => service.listItems(req.auth.organizationId, req.params.id),
    );

    app.get(
      '/evergreen/:id/items/:itemId',
      { schema: { tags, summary: 'One item of a queue', params: ItemParamsSchema, response: { 200: ItemSchema } } },
      async (req) => service.getItem(req.auth.organizationId, req.params.id, req.params.itemId),
    );

    app.patch(
      '/evergreen/:id/items/:itemId',
      {
        schema: { tags, summary: 'Change an item (fields given only; checked like a new one)', params: ItemParamsSchema, body: UpdateItemBodySchema, response: { 200: ItemSchema } },
      },
      async (req) => service.updateItem(req.auth.organizationId, req.params.id, req.params.itemId, req.body),
    );

    app.delete(
      '/evergreen/:id/items/:itemId',
      { schema: { tags, summary: 'Remove an item from the queue (posts made from it stay)', params: ItemParamsSchema, response: { 200: DeletedItemSchema } } },
      async (req) => service.deleteItem(req.auth.organizationId, req.params.id, req.params.itemId),
    );

    app.post(
      '/evergreen/:id/fill',
      {
        schema: {
          tags,
          summary: 'Fill the free slots of the queue now',
          description: 'What worker processes do periodically: answers the posts created and the free slots left empty (no item eligible). Never fills a channel slot twice, also when fills race.',
          params: QueueParamsSchema,
          response: { 200: FillResultSchema },
        },
      },
      async (req) => service.fill(req.auth.organizationId, req.params.id),
    );

    app.get(
      '/evergreen/:id/plan',
      {
        schema: {
          tags,
          summary: 'The slots the queue would fill next (planned, not yet created)',
          description: 'Each free slot of its channels in the next `days` days with the item and variation it would get (`itemId` null: it would stay empty). Writes nothing; paused channels are left out.',
          params: QueueParamsSchema,
          querystring: PlanQuerySchema,
          response: { 200: PlanSchema },
        },
      },
      async (req) => service.plan(req.auth.organizationId, req.params.id, req.query.days),
    );

    app.post(
      '/evergreen/:id/channels/:integrationId/resume',
      {
        schema: {
          tags,
          summary: 'Resume a channel the queue paused after repeated failures',
          params: ChannelParamsSchema,
          response: { 200: QueueSchema, ...errorResponses() },
        },
      },
      async (req) => service.resumeChannel(req.auth.organizationId, req.params.id, req.params.integrationId),
    );
  };
}
