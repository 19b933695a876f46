import type { Tx } from '../../db/client.js';
import { createEventsRepository } from './events.repository.js';

const repo = createEventsRepository();

/** Every event type a webhook can receive (API.md §5/§7), in the order the catalogue lists them. */
export const EVENT_TYPES = [
  'post.scheduled',
  'post.published',
  'post.failed',
  'post.deleted',
  'post.overdue',
  'post.approval_requested',
  'post.approved',
  'post.changes_requested',
  'post.approval_expired',
  'integration.connected',
  'integration.refresh_needed',
  'integration.disconnected',
  'video.succeeded',
  'video.failed',
  'series.created',
  'feed.item_posted',
  'import.completed',
  'webhook.disabled',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** PostgreSQL NOTIFY channel: webhook deliveries were queued (delivery workers in any process wake). */
export const WEBHOOK_CHANNEL = 'tidings_webhooks';

/**
 * Appends an event to the outbox in the caller's transaction, with one delivery for each of the
 * organisation's enabled webhooks whose filters take it (`webhookId` limits it to one webhook, as
 * `webhook.test` and `webhook.disabled` are). Both exist exactly when the change they report
 * commits, so no event is lost or invented. `post.*` events are ordered per root post; the
 * channel filter applies to events about a channel (`payload.integration.id`). `notify`: an
 * organisation notification written in the same statement (as `notifyIn` would, one round trip less).
 */
export async function emitEvent(
  tx: Tx,
  organizationId: string,
  type: EventType,
  payload: Record<string, unknown>,
  at: Date,
  opts: { webhookId?: string; notify?: { content: string; link: string | null } } = {},
): Promise<string> {
  const integration = (payload.integration as { id?: unknown } | undefined)?.id;
  const integrationId = typeof integration === 'string' ? integration : null;
  const rootPost = payload.rootPostId ?? payload.postId;
  const orderingKey = type.startsWith('post.') && typeof rootPost === 'string' ? rootPost : null;
  const event = await repo.appendEvent(tx, { organizationId, type, payload, orderingKey, integrationId, webhookId: opts.webhookId, at, channel: WEBHOOK_CHANNEL, notify: opts.notify });
  return event.id;
}

/** Writes an organisation notification in the caller's transaction. */
export async function notifyIn(tx: Tx, organizationId: string, content: string, link: string | null, at: Date) {
  await repo.insertNotification(tx, { organizationId, content, link, at });
}

/** The post part of `post.*` event payloads (one shape for every emitter). */
/** The channel an event is about; `sandbox: true` only on sandbox channels' events (issue 28), so live payloads keep their shape. */
export function channelRef(integration: { id: string; identifier: string; name: string; sandbox?: boolean | null }) {
  return { id: integration.id, identifier: integration.identifier, name: integration.name, ...(integration.sandbox ? { sandbox: true as const } : {}) };
}

export function postEventPayload(
  row: { id: string; parentPostId: string | null; group: string; position: number; integrationId: string },
  integration: { id: string; identifier: string; name: string; sandbox?: boolean | null } | undefined,
) {
  return {
    postId: row.id,
    rootPostId: row.parentPostId ?? row.id,
    group: row.group,
    position: row.position,
    integration: integration ? channelRef(integration) : { id: row.integrationId },
  };
}

/** `post.scheduled` for a root post put on the queue (one shape for every path that queues). */
export async function emitPostScheduled(
  tx: Tx,
  root: { id: string; organizationId: string; parentPostId: string | null; group: string; position: number; integrationId: string; publishDate: Date },
  channel: { id: string; identifier: string; name: string; sandbox?: boolean | null } | undefined,
  dueAt: Date,
  at: Date,
) {
  await emitEvent(tx, root.organizationId, 'post.scheduled', { ...postEventPayload(root, channel), publishDate: root.publishDate.toISOString(), dueAt: dueAt.toISOString() }, at);
}
