import type { WebhooksService } from '../../modules/webhooks/webhooks.service.js';
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
} from '../../modules/webhooks/webhooks.schemas.js';
import { defineTool } from '../tool.js';

const WEBHOOK_ID = 'the webhook id (from list_webhooks or create_webhook)';
const HINTS = {
  url: 'the receiver: an http(s) URL reaching a public address, without user:password',
  events: 'event types to receive (e.g. post.published, post.failed); leave out or [] for all',
  integrations: 'channel ids (from list_channels) whose events to receive; leave out or [] for every channel',
};
const FIELDS =
  'A webhook POSTs each event (post.scheduled, post.published, post.failed, post.deleted, post.overdue, integration.connected / refresh_needed / disconnected, video.succeeded / failed, series.created, feed.item_posted, import.completed, webhook.disabled) to its `url`, signed as Standard Webhooks with its secret. ' +
  '`events` and `integrations` filter what it receives (empty = everything). Dates in answers are ISO 8601, UTC.';

function describeWebhook(w: { id: string; name: string; url: string; enabled: boolean; disabledReason: string | null }): string {
  return `${w.name} (id ${w.id}) → ${w.url}${w.enabled ? '' : `, disabled${w.disabledReason ? `: ${w.disabledReason}` : ''}`}`;
}

/** Webhooks: the tools of `modules/webhooks/webhooks.routes.ts`, on the same service methods. */
export function webhookTools(webhooks: WebhooksService) {
  return [
    defineTool({
      name: 'list_webhooks',
      title: 'List webhooks',
      route: 'GET /webhooks',
      description: `The organisation's webhooks with their URL, filters and state (never their secrets). ${FIELDS} \`disabledReason\` says why the service disabled one (the receiver answered 410 Gone, or failed for 24 h).`,
      input: {},
      output: WebhookListSchema,
      outputKey: 'webhooks',
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx) => webhooks.listWebhooks(ctx.organizationId),
      summary: (list) => `${list.length} webhook(s): ${list.map(describeWebhook).join('; ') || 'none'}`,
    }),
    defineTool({
      name: 'get_webhook',
      title: 'Get one webhook',
      route: 'GET /webhooks/:id',
      description: `One webhook with its URL, filters and state (never its secret). ${FIELDS}`,
      input: { params: WebhookParamsSchema },
      rename: { 'params.id': 'webhookId' },
      hints: { webhookId: WEBHOOK_ID },
      output: WebhookSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { params }) => webhooks.getWebhook(ctx.organizationId, params.id),
      summary: describeWebhook,
    }),
    defineTool({
      name: 'create_webhook',
      title: 'Create a webhook',
      route: 'POST /webhooks',
      description:
        `Creates a webhook and answers it with its signing \`secret\` (\`whsec_…\`), shown only this once: give it to the person to store in their receiver, which checks signatures with it. ${FIELDS} ` +
        'The plan limits how many webhooks an organisation has. test_webhook sends a test event.',
      input: { body: CreateWebhookBodySchema },
      hints: { ...HINTS, name: 'a label for the person, e.g. "Zapier"' },
      output: CreatedWebhookSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      run: (ctx, { body }) => webhooks.createWebhook(ctx.organizationId, body),
      summary: (w) => `Created webhook ${describeWebhook(w)}; its signing secret (shown only now) is in \`secret\``,
    }),
    defineTool({
      name: 'update_webhook',
      title: 'Change a webhook',
      route: 'PUT /webhooks/:id',
      description:
        `Changes the fields given (others stay): name, url, events, integrations, enabled. \`enabled: true\` re-enables a webhook the service disabled; \`enabled: false\` cancels its pending deliveries. ${FIELDS}`,
      input: { params: WebhookParamsSchema, body: UpdateWebhookBodySchema },
      rename: { 'params.id': 'webhookId' },
      hints: { webhookId: WEBHOOK_ID, ...HINTS, name: 'a new label for the person' },
      output: WebhookSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      run: (ctx, { params, body }) => webhooks.updateWebhook(ctx.organizationId, params.id, body),
      summary: (w) => `Updated webhook ${describeWebhook(w)}`,
    }),
    defineTool({
      name: 'delete_webhook',
      title: 'Delete a webhook',
      route: 'DELETE /webhooks/:id',
      description: 'Deletes a webhook: it receives no more events and its pending deliveries are cancelled.',
      input: { params: WebhookParamsSchema },
      rename: { 'params.id': 'webhookId' },
      hints: { webhookId: WEBHOOK_ID },
      output: DeletedWebhookSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      run: (ctx, { params }) => webhooks.deleteWebhook(ctx.organizationId, params.id),
      summary: (r) => `Deleted webhook ${r.id}`,
    }),
    defineTool({
      name: 'rotate_webhook_secret',
      title: "Replace a webhook's signing secret",
      route: 'POST /webhooks/:id/rotate-secret',
      description:
        'Makes a new signing secret and answers it, shown only this once. Until `previousValidUntil` (24 h, ISO 8601 UTC) deliveries carry a signature with the new and with the previous secret, so the receiver can switch without losing any; after that the previous one is gone.',
      input: { params: WebhookParamsSchema },
      rename: { 'params.id': 'webhookId' },
      hints: { webhookId: WEBHOOK_ID },
      output: RotatedSecretSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
      run: (ctx, { params }) => webhooks.rotateSecret(ctx.organizationId, params.id),
      summary: (r) => `New signing secret made (in \`secret\`, shown only now); the previous one signs too until ${r.previousValidUntil}`,
    }),
    defineTool({
      name: 'test_webhook',
      title: 'Send a test event to a webhook',
      route: 'POST /webhooks/:id/test',
      description:
        "Queues a `webhook.test` event to this webhook only (also when it is disabled) and answers at once with the delivery's id; it is sent within seconds, signed and retried like any event. list_webhook_deliveries shows how the receiver answered.",
      input: { params: WebhookParamsSchema },
      rename: { 'params.id': 'webhookId' },
      hints: { webhookId: WEBHOOK_ID },
      output: TestSentSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: (ctx, { params }) => webhooks.sendTest(ctx.organizationId, params.id),
      summary: (r) => `Test event ${r.eventId} queued as delivery ${r.deliveryId}; list_webhook_deliveries shows the outcome`,
    }),
    defineTool({
      name: 'list_webhook_deliveries',
      title: "A webhook's delivery log",
      route: 'GET /webhooks/:id/deliveries',
      description:
        "Every delivery attempt of a webhook, newest first, 50 per page (`page` from 0), and deliveries not attempted yet (attempt 0): the event, the receiver's HTTP status and the start of its answer, the error, when it was made and when the next attempt is due (ISO 8601, UTC), and the delivery's state now (pending, delivered, failed, cancelled). " +
        'A `deliveryId` here is what resend_webhook_delivery takes.',
      input: { params: WebhookParamsSchema, query: DeliveryLogQuerySchema },
      rename: { 'params.id': 'webhookId' },
      hints: { webhookId: WEBHOOK_ID },
      output: DeliveryLogPageSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { params, query }) => webhooks.listDeliveries(ctx.organizationId, params.id, query.page),
      summary: (p) =>
        `${p.deliveries.length} of ${p.total} entr${p.total === 1 ? 'y' : 'ies'} on page ${p.page}${p.hasMore ? ' (more on the next page)' : ''}: ` +
        (p.deliveries.map((d) => `${d.eventType} attempt ${d.attempt} ${d.state}${d.statusCode === null ? '' : ` (HTTP ${d.statusCode})`}${d.error ? `: ${d.error}` : ''}`).join('; ') || 'none'),
    }),
    defineTool({
      name: 'resend_webhook_delivery',
      title: 'Send a webhook delivery again',
      route: 'POST /webhooks/:id/deliveries/:deliveryId/resend',
      description:
        'Sends one delivery again now, whatever its state (delivered, failed or cancelled), with the same `webhook-id` header so the receiver can tell it is the same event. list_webhook_deliveries shows the new attempt.',
      input: { params: DeliveryParamsSchema },
      rename: { 'params.id': 'webhookId' },
      hints: { webhookId: WEBHOOK_ID, deliveryId: 'a deliveryId from list_webhook_deliveries (or test_webhook)' },
      output: ResentSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      run: (ctx, { params }) => webhooks.resendDelivery(ctx.organizationId, params.id, params.deliveryId),
      summary: (r) => `Delivery ${r.deliveryId} is queued to be sent again`,
    }),
  ];
}
