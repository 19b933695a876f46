import { sql } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { notifications } from '../../db/schema/index.js';

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
    /**
     * Appends the event with one pending delivery for each of the organisation's webhooks that take
     * it (only `webhookId` when given, whatever its filters) and, when any was queued, a NOTIFY on
     * `channel` (sent when `tx` commits): one statement, whatever the number of webhooks. Answers the
     * event's id and how many deliveries were queued.
     */
    async appendEvent(
      tx: Tx,
      q: {
        organizationId: string;
        type: string;
        payload: Record<string, unknown>;
        orderingKey: string | null;
        integrationId: string | null;
        webhookId?: string;
        at: Date;
        channel: string;
        /** a notification written in the same statement */
        notify?: { content: string; link: string | null };
      },
    ): Promise<{ id: string; queued: number }> {
      const { organizationId, type, orderingKey, integrationId, channel } = q;
      const at = q.at.toISOString();
      const result = await tx.execute(sql`
    WITH event AS (
      INSERT INTO events (organization_id, type, payload, created_at)
      VALUES (${organizationId}, ${type}, ${JSON.stringify(q.payload)}::jsonb, ${at}::timestamptz)
      RETURNING id
    ), queued AS (
      INSERT INTO webhook_deliveries (webhook_id, organization_id, event_id, event_type, ordering_key, next_attempt_at, created_at, updated_at)
      SELECT w.id, w.organization_id, event.id, ${type}, ${orderingKey}, ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz
      FROM webhooks w, event
      WHERE w.organization_id = ${organizationId} AND w.deleted_at IS NULL
        AND ${q.webhookId ? sql`w.id = ${q.webhookId}` : sql`w.enabled AND (jsonb_array_length(w.events) = 0 OR w.events ? ${type})
        AND (${integrationId}::text IS NULL OR jsonb_array_length(w.integration_ids) = 0 OR w.integration_ids ? ${integrationId}::text)`}
      RETURNING 1
    )${q.notify ? sql`, noted AS (
      INSERT INTO notifications (organization_id, content, link, created_at)
      VALUES (${organizationId}, ${q.notify.content}, ${q.notify.link}, ${at}::timestamptz)
    )` : sql``}, counted AS (SELECT count(*)::int AS n FROM queued)
    SELECT event.id, counted.n AS queued, CASE WHEN counted.n > 0 THEN pg_notify(${channel}, ${organizationId}) END AS notified
    FROM event, counted`);
      const row = rowsOf(result)[0] as { id: string; queued: number | string };
      return { id: row.id, queued: Number(row.queued) };
    },

    async insertNotification(tx: Tx, row: { organizationId: string; content: string; link: string | null; at: Date }): Promise<void> {
      await tx.insert(notifications).values({ organizationId: row.organizationId, content: row.content, link: row.link, createdAt: row.at });
    },
  };
}

export type EventsRepository = ReturnType<typeof createEventsRepository>;
