import { fieldError, notFound, validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { newWebhookSecret } from '../../core/webhooks/secrets.js';
import { assertDeliverableUrl, UndeliverableUrlError, type DeliverableUrlOptions } from '../../core/webhooks/target.js';
import type { PlansService } from '../plans/plans.service.js';
import { NO_ACTIVITY, type ActivityRecorder } from '../../core/activity.js';
import type { WebhookPatch, WebhookRow, WebhooksRepository } from './webhooks.repository.js';
import { DELIVERY_LOG_PAGE_SIZE, type CreateWebhookBody, type UpdateWebhookBody } from './webhooks.schemas.js';

/** After a rotation the previous secret keeps signing alongside the new one this long. */
export const PREVIOUS_SECRET_VALIDITY_MS = 24 * 3600_000;

/** Webhooks of an organisation: their settings and secrets, test events, the delivery log and resends. */
export function createWebhooksService(deps: {
  webhooks: WebhooksRepository;
  plans: Pick<PlansService, 'assertWithinLimit'>;
  secretBox: SecretBox;
  clock: Clock;
  /** the address rules of `assertDeliverableUrl` (config ALLOW_PRIVATE_TARGETS; tests inject a resolver) */
  target: DeliverableUrlOptions;
  /** the activity log (none: nothing recorded); never given the secret */
  activity?: ActivityRecorder;
}) {
  const { webhooks, plans, secretBox, clock, target } = deps;
  const activity = deps.activity ?? NO_ACTIVITY;
  const recordWebhook = (row: Pick<WebhookRow, 'id' | 'organizationId' | 'name'>, action: string, details: Record<string, unknown> = {}) =>
    activity.record({ organizationId: row.organizationId, action, targetKind: 'webhook', targetId: row.id, targetName: row.name, details });
  const now = () => new Date(clock.now());

  function view(row: WebhookRow) {
    const previous = row.previousSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt.getTime() > clock.now() ? row.previousSecretExpiresAt : null;
    return {
      id: row.id,
      name: row.name,
      url: row.url,
      events: row.events,
      integrations: row.integrationIds,
      enabled: row.enabled,
      disabledReason: row.disabledReason,
      secretPreviousValidUntil: previous ? previous.toISOString() : null,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  async function checkUrl(url: string) {
    try {
      await assertDeliverableUrl(url, target);
      return url;
    } catch (e) {
      if (e instanceof UndeliverableUrlError) throw fieldError('url', e.message);
      throw e;
    }
  }

  /** Every id must be a live channel of the organisation; each unknown one is named (`integrations.N`). */
  async function checkIntegrations(organizationId: string, ids: string[]) {
    const unique = [...new Set(ids)];
    const known = await webhooks.findLiveIntegrationIds(organizationId, unique.filter(isUuid));
    const unknown = ids.flatMap((id, i) => (known.has(id) ? [] : [{ path: `integrations.${i}`, message: `Unknown channel ${id}` }]));
    if (unknown.length > 0) throw validationError(unknown);
    return unique;
  }

  async function getRow(organizationId: string, id: string) {
    const row = isUuid(id) ? await webhooks.findWebhook(organizationId, id) : undefined;
    if (!row) throw notFound('Webhook');
    return row;
  }

  return {
    listWebhooks: async (organizationId: string) => (await webhooks.listWebhooks(organizationId)).map(view),

    getWebhook: async (organizationId: string, id: string) => view(await getRow(organizationId, id)),

    /** Answers the secret, once; it is stored sealed and never shown again. */
    async createWebhook(organizationId: string, body: CreateWebhookBody) {
      await plans.assertWithinLimit(organizationId, 'webhooks', () => webhooks.countLiveWebhooks(organizationId));
      const url = await checkUrl(body.url);
      const integrationIds = await checkIntegrations(organizationId, body.integrations ?? []);
      const secret = newWebhookSecret();
      const at = now();
      const row = await webhooks.insertWebhook({
        organizationId,
        name: body.name,
        url,
        events: [...new Set(body.events ?? [])],
        integrationIds,
        enabled: body.enabled,
        secret: secretBox.seal(secret),
        createdAt: at,
        updatedAt: at,
      });
      await recordWebhook(row, 'webhook.created', { url: row.url, events: row.events, integrations: row.integrationIds, enabled: row.enabled });
      return { ...view(row), secret };
    },

    /** Enabling clears what the service recorded when it disabled it; disabling cancels pending deliveries. */
    async updateWebhook(organizationId: string, id: string, body: UpdateWebhookBody) {
      const current = await getRow(organizationId, id);
      const patch: WebhookPatch = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.url !== undefined) patch.url = await checkUrl(body.url);
      if (body.events !== undefined) patch.events = [...new Set(body.events)];
      if (body.integrations !== undefined) patch.integrationIds = await checkIntegrations(organizationId, body.integrations);
      if (body.enabled !== undefined && body.enabled !== current.enabled) {
        patch.enabled = body.enabled;
        // Disabled by the user: no reason of the service's stays. Re-enabled: a fresh start, so
        // the 24 h failure window restarts. Only on a change: a client that sends `enabled: true`
        // with every update must not keep a failing webhook from being disabled.
        patch.disabledReason = null;
        if (body.enabled) patch.failingSince = null;
      }
      const row = await webhooks.updateWebhook(organizationId, current.id, patch, now(), { cancel: body.enabled === false });
      if (!row) throw notFound('Webhook');
      await recordWebhook(row, 'webhook.updated', { changed: Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined) });
      return view(row);
    },

    /** Soft delete; its pending deliveries are cancelled. */
    async deleteWebhook(organizationId: string, id: string) {
      const before = isUuid(id) ? await webhooks.findWebhook(organizationId, id) : undefined;
      const row = before ? await webhooks.deleteWebhook(organizationId, id, now()) : undefined;
      if (!row) throw notFound('Webhook');
      await recordWebhook({ id: row.id, organizationId, name: before!.name }, 'webhook.deleted');
      return { id: row.id, deleted: true as const };
    },

    /** A new secret, shown once; the previous one keeps signing for 24 h so receivers can switch. */
    async rotateSecret(organizationId: string, id: string) {
      const secret = newWebhookSecret();
      const at = now();
      const until = new Date(at.getTime() + PREVIOUS_SECRET_VALIDITY_MS);
      const row = isUuid(id) ? await webhooks.rotateSecret(organizationId, id, secretBox.seal(secret), until, at) : undefined;
      if (!row) throw notFound('Webhook');
      await recordWebhook(row, 'webhook.secret_rotated', { previousValidUntil: until.toISOString() });
      return { secret, previousValidUntil: until.toISOString() };
    },

    /** Queues a `webhook.test` event to this webhook only (even when disabled); the workers deliver it. */
    async sendTest(organizationId: string, id: string) {
      const row = await getRow(organizationId, id);
      const sent = await webhooks.emitTest(organizationId, row, now());
      if (!sent) throw notFound('Webhook');
      return sent;
    },

    /** Newest first, pages of 50; attempts and deliveries not attempted yet. */
    async listDeliveries(organizationId: string, id: string, page: number) {
      const row = await getRow(organizationId, id);
      const { rows, total } = await webhooks.listDeliveryLog(row.id, page * DELIVERY_LOG_PAGE_SIZE, DELIVERY_LOG_PAGE_SIZE);
      return {
        deliveries: rows.map((r) => ({ ...r, at: r.at.toISOString(), nextAttemptAt: r.nextAttemptAt?.toISOString() ?? null })),
        total,
        page,
        limit: DELIVERY_LOG_PAGE_SIZE,
        hasMore: (page + 1) * DELIVERY_LOG_PAGE_SIZE < total,
      };
    },

    /** Sends a delivery again: pending, due now, its lease cleared; the delivery workers are woken. */
    async resendDelivery(organizationId: string, id: string, deliveryId: string) {
      const row = isUuid(id) && isUuid(deliveryId) ? await webhooks.resendDelivery(organizationId, id, deliveryId, now()) : undefined;
      if (!row) throw notFound('Delivery');
      return { deliveryId: row.id, state: 'pending' as const };
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
