import { and, asc, eq, gte, isNotNull, isNull, lt } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { customers, integrations, posts } from '../../db/schema/index.js';

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

    /** One live channel of the organisation, with its group. */
    async findIntegration(organizationId: string, id: string) {
      const [row] = await db
        .select({ integration: integrations, customer: { id: customers.id, name: customers.name } })
        .from(integrations)
        .leftJoin(customers, and(eq(customers.id, integrations.customerId), isNull(customers.deletedAt)))
        .where(and(eq(integrations.id, id), eq(integrations.organizationId, organizationId), isNull(integrations.deletedAt)));
      return row;
    },

    async updateIntegration(organizationId: string, id: string, patch: Partial<NewIntegration>) {
      const [row] = await db
        .update(integrations)
        .set(patch)
        .where(and(eq(integrations.id, id), eq(integrations.organizationId, organizationId), isNull(integrations.deletedAt)))
        .returning();
      return row;
    },

    /** Publish instants (ms) already used by live posts of the organisation within [from, to). */
    async findTakenInstants(organizationId: string, from: Date, to: Date) {
      const rows = await db
        .select({ at: posts.publishDate })
        .from(posts)
        .where(and(eq(posts.organizationId, organizationId), isNull(posts.deletedAt), gte(posts.publishDate, from), lt(posts.publishDate, to)));
      return new Set(rows.map((r) => r.at.getTime()));
    },

    async insertIntegration(values: NewIntegration) {
      const [row] = await db.insert(integrations).values(values).returning();
      return row!;
    },
  };
}

export type IntegrationsRepository = ReturnType<typeof createIntegrationsRepository>;
