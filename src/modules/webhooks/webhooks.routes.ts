import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/error-schema.js';
import type { WebhooksService } from './webhooks.service.js';
import {
  CreatedWebhookSchema,
  CreateWebhookBodySchema,
  DeletedWebhookSchema,
  DeliveryLogPageSchema,
  DeliveryLogQuerySchema,
  DeliveryParamsSchema,
  ResentSchema,
  RotatedSecretSchema,
  TestSentSchema,
  UpdateWebhookBodySchema,
  WebhookListSchema,
  WebhookParamsSchema,
  WebhookSchema,
} from './webhooks.schemas.js';

const tags = ['Webhooks'];

export function webhooksRoutes(service: WebhooksService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/webhooks',
      {
        schema: {
          tags,
          summary: 'Create a webhook; answers its signing secret, shown only this once',
          description:
            'Events are POSTed to `url` signed as Standard Webhooks. The URL must be http(s) without credentials and reach only public addresses (400 naming `url` otherwise). The plan limits how many webhooks an organisation has (403).',
          body: CreateWebhookBodySchema,
          response: { 201: CreatedWebhookSchema, ...errorResponses('PLAN_LIMIT_REACHED') },
        },
      },
      async (req, reply) => reply.status(201).send(await service.createWebhook(req.auth.organizationId, req.body)),
    );

    app.get(
      '/webhooks',
      { schema: { tags, summary: "The organisation's webhooks (never their secrets)", response: { 200: WebhookListSchema } } },
      async (req) => service.listWebhooks(req.auth.organizationId),
    );

    app.get(
      '/webhooks/:id',
      { schema: { tags, summary: 'One webhook', params: WebhookParamsSchema, response: { 200: WebhookSchema } } },
      async (req) => service.getWebhook(req.auth.organizationId, req.params.id),
    );

    app.put(
      '/webhooks/:id',
      {
        schema: {
          tags,
          summary: 'Change a webhook (fields given only)',
          description: '`enabled: true` re-enables a webhook the service disabled; `enabled: false` cancels its pending deliveries.',
          params: WebhookParamsSchema,
          body: UpdateWebhookBodySchema,
          response: { 200: WebhookSchema },
        },
      },
      async (req) => service.updateWebhook(req.auth.organizationId, req.params.id, req.body),
    );

    app.delete(
      '/webhooks/:id',
      {
        schema: { tags, summary: 'Delete a webhook; its pending deliveries are cancelled', params: WebhookParamsSchema, response: { 200: DeletedWebhookSchema } },
      },
      async (req) => service.deleteWebhook(req.auth.organizationId, req.params.id),
    );

    app.post(
      '/webhooks/:id/rotate-secret',
      {
        schema: {
          tags,
          summary: 'Replace the signing secret; answers the new one, shown only this once',
          description: 'For 24 h deliveries carry a signature with each secret (the new and the previous), so receivers can switch without losing any.',
          params: WebhookParamsSchema,
          response: { 200: RotatedSecretSchema },
        },
      },
      async (req) => service.rotateSecret(req.auth.organizationId, req.params.id),
    );

    app.post(
      '/webhooks/:id/test',
      {
        schema: {
          tags,
          summary: 'Queue a `webhook.test` event to this webhook only',
          description: 'Delivered like any event (signed, retried, logged in `GET /webhooks/{id}/deliveries`), also when the webhook is disabled.',
          params: WebhookParamsSchema,
          response: { 202: TestSentSchema },
        },
      },
      async (req, reply) => reply.status(202).send(await service.sendTest(req.auth.organizationId, req.params.id)),
    );

    app.get(
      '/webhooks/:id/deliveries',
      {
        schema: {
          tags,
          summary: 'The delivery log: every attempt, newest first, and the deliveries not attempted yet',
          params: WebhookParamsSchema,
          querystring: DeliveryLogQuerySchema,
          response: { 200: DeliveryLogPageSchema },
        },
      },
      async (req) => service.listDeliveries(req.auth.organizationId, req.params.id, req.query.page),
    );

    app.post(
      '/webhooks/:id/deliveries/:deliveryId/resend',
      {
        schema: {
          tags,
          summary: 'Send a delivery again, now (same `webhook-id`, so receivers can de-duplicate)',
          params: DeliveryParamsSchema,
          response: { 202: ResentSchema },
        },
      },
      async (req, reply) => reply.status(202).send(await service.resendDelivery(req.auth.organizationId, req.params.id, req.params.deliveryId)),
    );
  };
}
