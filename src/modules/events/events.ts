import type { Tx } from '../../db/client.js';
import { events, notifications } from '../../db/schema/index.js';

/** Event types the service emits (the webhooks issue delivers them). */
export type EventType = 'post.published' | 'post.failed' | 'integration.refresh_needed' | 'integration.disconnected';

/**
 * Appends an event to the outbox in the caller's transaction: it exists exactly when the change it
 * reports commits, so a delivery process never announces something that was rolled back.
 */
export async function emitEvent(tx: Tx, organizationId: string, type: EventType, payload: Record<string, unknown>, at: Date) {
  await tx.insert(events).values({ organizationId, type, payload, createdAt: at });
}

/** Writes an organisation notification in the caller's transaction. */
export async function notifyIn(tx: Tx, organizationId: string, content: string, link: string | null, at: Date) {
  await tx.insert(notifications).values({ organizationId, content, link, createdAt: at });
}

/** The post part of `post.*` event payloads (one shape for every emitter). */
export function postEventPayload(
  row: { id: string; parentPostId: string | null; group: string; position: number; integrationId: string },
  integration: { id: string; identifier: string; name: string } | undefined,
) {
  return {
    postId: row.id,
    rootPostId: row.parentPostId ?? row.id,
    group: row.group,
    position: row.position,
    integration: integration ? { id: integration.id, identifier: integration.identifier, name: integration.name } : { id: row.integrationId },
  };
}
