import { sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { events, notifications } from '../../db/schema/index.js';

function rowsOf(result: unknown): unknown[] {
  const r = result as { rows?: unknown[] } | unknown[];
  return Array.isArray(r) ? r : (r.rows ?? []);
}

/**
 * The outbox's SQL. Every statement runs in the caller's transaction (`tx`), so an event, its
 * deliveries and a notification exist exactly when the change they report commits.
 */
export function createEventsRepository() {
  return {
    async insertEvent(tx: Tx, row: { organizationId: string; type: string; payload: Record<string, unknown>; at: Date }): Promise<string> {
      const [event] = await tx.insert(events).values({ organizationId: row.organizationId, type: row.type, payload: row.payload, createdAt: row.at }).returning({ id: events.id });
      return event!.id;
    },

    /**
     * One pending delivery for each of the organisation's webhooks that take the event (only
     * `webhookId` when given, whatever its filters); returns how many were queued.
     */
    async queueDeliveries(
      tx: Tx,
      q: { organizationId: string; eventId: string; type: string; orderingKey: string | null; integrationId: string | null; webhookId?: string; at: Date },
    ): Promise<number> {
      const { organizationId, eventId, type, orderingKey, integrationId, at } = q;
      const queued = await tx.execute(sql`
    INSERT INTO webhook_deliveries (webhook_id, organization_id, event_id, event_type, ordering_key, next_attempt_at, created_at, updated_at)
    SELECT w.id, w.organization_id, ${eventId}, ${type}, ${orderingKey}, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz
    FROM webhooks w
    WHERE w.organization_id = ${organizationId} AND w.deleted_at IS NULL
      AND ${q.webhookId ? sql`w.id = ${q.webhookId}` : sql`w.enabled AND (jsonb_array_length(w.events) = 0 OR w.events ? ${type})
      AND (${integrationId}::text IS NULL OR jsonb_array_length(w.integration_ids) = 0 OR w.integration_ids ? ${integrationId}::text)`}
    RETURNING id`);
      return rowsOf(queued).length;
    },

    /** Wakes delivery workers in every process listening on `channel` (sent when `tx` commits). */
    async notifyChannel(tx: Tx, channel: string, organizationId: string): Promise<void> {
      await tx.execute(sql`select pg_notify(${channel}, ${organizationId})`);
    },

    async insertNotification(tx: Tx, row: { organizationId: string; content: string; link: string | null; at: Date }): Promise<void> {
      await tx.insert(notifications).values({ organizationId: row.organizationId, content: row.content, link: row.link, createdAt: row.at });
    },
  };
}

export type EventsRepository = ReturnType<typeof createEventsRepository>;
