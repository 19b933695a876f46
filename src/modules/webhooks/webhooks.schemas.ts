import { z } from 'zod';
import { EVENT_TYPES } from '../../core/events/events.js';

/** Event types a webhook can subscribe to: all but `webhook.test`, which only `POST /webhooks/{id}/test` sends. */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((t) => t !== 'webhook.test') as [Exclude<(typeof EVENT_TYPES)[number], 'webhook.test'>, ...Exclude<(typeof EVENT_TYPES)[number], 'webhook.test'>[]];

const EventTypeSchema = z.enum(SUBSCRIBABLE_EVENT_TYPES);

const fields = {
  name: z.string().trim().min(1, 'Required').max(100),
  url: z.string().trim().max(2048).describe('http or https; must reach a public address (checked when saved and before every delivery)'),
  events: z.array(EventTypeSchema).max(EVENT_TYPES.length * 4).describe('event types to receive; empty or absent = all'),
  integrations: z.array(z.string().max(100)).max(1000).describe('channel ids whose events to receive; empty or absent = every channel (events not about a channel always arrive)'),
  enabled: z.boolean(),
};

export const CreateWebhookBodySchema = z.object({
  name: fields.name,
  url: fields.url,
  events: fields.events.optional(),
  integrations: fields.integrations.optional(),
  enabled: fields.enabled.default(true).describe('default true'),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBodySchema>;

export const UpdateWebhookBodySchema = z.object({
  name: fields.name.optional(),
  url: fields.url.optional(),
  events: fields.events.optional(),
  integrations: fields.integrations.optional(),
  enabled: fields.enabled.optional().describe('true re-enables a webhook the service disabled; false cancels its pending deliveries'),
});
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBodySchema>;

export const WebhookSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    events: z.array(z.string()).describe('subscribed event types; empty = all'),
    integrations: z.array(z.string()).describe('channel ids filtered on; empty = every channel'),
    enabled: z.boolean(),
    disabledReason: z.string().nullable().describe('why the service disabled it (410 Gone, failing for 24 h); null when enabled or disabled by you'),
    secretPreviousValidUntil: z.string().nullable().describe('after a rotation, until when deliveries are also signed with the previous secret; null otherwise'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Webhook' });

/** `GET /webhooks`. */
export const WebhookListSchema = z.array(WebhookSchema);

const SecretSchema = z.string().describe('the signing secret (`whsec_` + base64, Standard Webhooks); shown only now');

export const CreatedWebhookSchema = WebhookSchema.extend({ secret: SecretSchema }).meta({ id: 'CreatedWebhook' });

export const WebhookParamsSchema = z.object({ id: z.string() });
export const DeliveryParamsSchema = z.object({ id: z.string(), deliveryId: z.string() });

export const DeletedWebhookSchema = z.object({ id: z.string(), deleted: z.literal(true) });
export const RotatedSecretSchema = z.object({
  secret: SecretSchema,
  previousValidUntil: z.string().describe('the previous secret also signs deliveries until then (24 h)'),
});
export const TestSentSchema = z.object({
  deliveryId: z.string().describe('the delivery queued (its `webhook-id`)'),
  eventId: z.string().describe('the `webhook.test` event'),
});
export const ResentSchema = z.object({ deliveryId: z.string(), state: z.literal('pending') });

export const DELIVERY_LOG_PAGE_SIZE = 50;

export const DeliveryLogQuerySchema = z.object({
  page: z.coerce.number().int().min(0).max(1_000_000).default(0).describe(`page number, from 0 (${DELIVERY_LOG_PAGE_SIZE} entries a page, newest first)`),
});

export const DeliveryLogEntrySchema = z
  .object({
    deliveryId: z.string().describe('the delivery (the `webhook-id` header sent with each of its attempts)'),
    eventId: z.string().describe('the event delivered'),
    eventType: z.string().describe('its type, e.g. `post.published`'),
    attempt: z.number().int().describe('1 for the first attempt, 2 for the first retry, …; 0 for a delivery not attempted yet (one entry, until its first attempt)'),
    statusCode: z.number().int().nullable().describe("the receiver's HTTP status; null when no answer came (timeout, refused connection, refused address) or not attempted yet"),
    durationMs: z.number().int().nullable().describe('how long the attempt took; null when not attempted yet'),
    responseSnippet: z.string().nullable().describe("the first 1,000 characters of the receiver's answer"),
    error: z.string().nullable().describe('why the attempt failed, when it did'),
    at: z.string().describe('when the attempt was made; for a delivery not attempted yet, when it was queued'),
    nextAttemptAt: z.string().nullable().describe('when the next attempt was due after this one; null when none followed (delivered or given up)'),
    state: z.enum(['pending', 'delivered', 'failed', 'cancelled']).describe("the delivery's state now: `pending` (to be sent or retried), `delivered`, `failed` (given up), `cancelled` (webhook disabled or deleted)"),
  })
  .meta({ id: 'WebhookDeliveryLogEntry' });

export const DeliveryLogPageSchema = z.object({
  deliveries: z.array(DeliveryLogEntrySchema).describe('attempts, newest first, and deliveries not attempted yet'),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  hasMore: z.boolean(),
});
