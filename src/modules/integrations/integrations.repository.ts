import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { customers, integrations } from '../../db/schema/index.js';

export type IntegrationRow = typeof integrations.$inferSelect;
export type NewIntegration = typeof integrations.$inferInsert;

export function createIntegrationsRepository(db: Db) {
  return {
    /** Every live channel of the organisation (disabled and refresh-needed ones included). */
    async listIntegrations(organizationId: string, filter: { customerId?: string } = {}) {
      return db
        .select({ integration: integrations, customer: { id: customers.id, name: customers.name } })
        .from(integrations)
        .leftJoin(customers, and(eq(customers.id, integrations.customerId), isNull(customers.deletedAt)))
        .where(
          and(
            eq(integrations.organizationId, organizationId),
            isNull(integrations.deletedAt),
            filter.customerId === undefined ? undefined : eq(integrations.customerId, filter.customerId),
          ),
        )
        .orderBy(asc(integrations.createdAt), asc(integrations.id));
    },

    /** Whether any channel could publish now: enabled, with credentials, not waiting for a reconnect. */
    async hasPublishableIntegration(organizationId: string) {
      const [row] = await db
        .select({ id: integrations.id })
        .from(integrations)
        .where(
          and(
            eq(integrations.organizationId, organizationId),
            isNull(integrations.deletedAt),
            eq(integrations.disabled, false),
            eq(integrations.refreshNeeded, false),
            isNotNull(integrations.credentials),
          ),
        )
        .limit(1);
      return row !== undefined;
    },

    async insertIntegration(values: NewIntegration) {
      const [row] = await db.insert(integrations).values(values).returning();
      return row!;
    },
  };
}

export type IntegrationsRepository = ReturnType<typeof createIntegrationsRepository>;
