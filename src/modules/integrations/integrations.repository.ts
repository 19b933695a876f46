import { and, asc, count, eq, gte, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { channelRef, emitEvent, postEventPayload } from '../../core/events/events.js';
import { customers, integrations, memberships, oauthAccessTokens, oauthGrants, posts, users } from '../../db/schema/index.js';

export type IntegrationRow = typeof integrations.$inferSelect;
export type NewIntegration = typeof integrations.$inferInsert;

/** The columns a channel's answer shows (`toIntegration`): no credentials, no tokens. */
const viewColumns = {
  id: integrations.id,
  name: integrations.name,
  identifier: integrations.identifier,
  picture: integrations.picture,
  disabled: integrations.disabled,
  profile: integrations.profile,
  refreshNeeded: integrations.refreshNeeded,
  sandbox: integrations.sandbox,
  postingTimes: integrations.postingTimes,
  defaultSettings: integrations.defaultSettings,
  createdAt: integrations.createdAt,
  updatedAt: integrations.updatedAt,
};
export type IntegrationView = Pick<IntegrationRow, keyof typeof viewColumns>;

export function createIntegrationsRepository(db: Db) {
  // GET /integrations is the most frequent call of all (clients poll it): its query is built once
  // and prepared (on PostgreSQL a named statement per connection, parsed and planned once).
  const listViews = (withCustomer: boolean) =>
    db
      .select({ integration: viewColumns, customer: { id: customers.id, name: customers.name } })
      .from(integrations)
      .leftJoin(customers, and(eq(customers.id, integrations.customerId), isNull(customers.deletedAt)))
      .where(
        and(
          eq(integrations.organizationId, sql.placeholder('organizationId')),
          isNull(integrations.deletedAt),
          withCustomer ? eq(integrations.customerId, sql.placeholder('customerId')) : undefined,
        ),
      )
      .orderBy(asc(integrations.createdAt), asc(integrations.id))
      .prepare(withCustomer ? 'integrations_views_of_customer' : 'integrations_views');
  const views = listViews(false);
  const viewsOfCustomer = listViews(true);

  return {
    /** The organisation's live channels as answers show them (`customerId`: of that client only). */
    async listIntegrationViews(organizationId: string, filter: { customerId?: string } = {}) {
      return filter.customerId === undefined ? views.execute({ organizationId }) : viewsOfCustomer.execute({ organizationId, customerId: filter.customerId });
    },

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

    /** Publish instants (ms) already used by live posts of the organisation (of one channel when `integrationId` is given) within [from, to). */
    async findTakenInstants(organizationId: string, from: Date, to: Date, integrationId?: string) {
      const rows = await db
        .select({ at: posts.publishDate })
        .from(posts)
        .where(
          and(
            eq(posts.organizationId, organizationId),
            isNull(posts.deletedAt),
            gte(posts.publishDate, from),
            lt(posts.publishDate, to),
            integrationId === undefined ? undefined : eq(posts.integrationId, integrationId),
          ),
        );
      return new Set(rows.map((r) => r.at.getTime()));
    },

    /**
     * Disconnects a channel in one transaction: its stored credentials are erased, the channel
     * is soft-deleted, and its queued posts end ERROR with `reason` (nothing stays queued silently).
     * Returns the channel as it was, or undefined when it is not the organisation's.
     */
    async disconnectIntegration(organizationId: string, id: string, at: Date, reason: string) {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(integrations)
          .set({ credentials: null, tokenExpiresAt: null, deletedAt: at, updatedAt: at })
          .where(and(eq(integrations.id, id), eq(integrations.organizationId, organizationId), isNull(integrations.deletedAt)))
          .returning();
        if (!row) return undefined;
        const failed = await tx
          .update(posts)
          .set({ state: 'ERROR', error: reason, updatedAt: at })
          .where(and(eq(posts.integrationId, id), eq(posts.state, 'QUEUE'), isNull(posts.deletedAt)))
          .returning({ id: posts.id, parentPostId: posts.parentPostId, group: posts.group, position: posts.position, integrationId: posts.integrationId });
        const channel = channelRef(row);
        await emitEvent(tx, organizationId, 'integration.disconnected', { integration: channel, disconnectedAt: at.toISOString() }, at);
        for (const p of failed) {
          await emitEvent(
            tx,
            organizationId,
            'post.failed',
            { ...postEventPayload(p, channel), error: reason, failedAt: at.toISOString() },
            at,
          );
        }
        return { row, failedPostIds: failed.map((p) => p.id) };
      });
    },

    async findGroupsByIds(organizationId: string, ids: string[]) {
      if (ids.length === 0) return [];
      return db
        .select({ id: customers.id, name: customers.name })
        .from(customers)
        .where(and(eq(customers.organizationId, organizationId), inArray(customers.id, ids)));
    },

    async countLiveIntegrations(organizationId: string) {
      const [row] = await db
        .select({ n: count() })
        .from(integrations)
        .where(and(eq(integrations.organizationId, organizationId), isNull(integrations.deletedAt)));
      return row?.n ?? 0;
    },

    async findByAccount(organizationId: string, identifier: string, internalId: string) {
      const [row] = await db
        .select()
        .from(integrations)
        .where(
          and(
            eq(integrations.organizationId, organizationId),
            eq(integrations.identifier, identifier),
            eq(integrations.internalId, internalId),
            isNull(integrations.deletedAt),
          ),
        );
      return row;
    },

    /**
     * Creates the channel of a newly connected account, or updates the live channel of the same
     * platform account (never a duplicate, even when two connects race): new credentials and
     * profile, `refreshNeeded` cleared. `inserted` tells which happened.
     */
    async upsertConnected(values: {
      organizationId: string;
      identifier: string;
      internalId: string;
      name: string;
      profile: string | null;
      picture: string | null;
      credentials: string;
      tokenExpiresAt: Date | null;
      instanceUrl: string | null;
      /** the posting times of a new channel (a reconnect keeps the channel's own) */
      postingTimes: { time: number }[];
      /** a sandbox channel (set on insert only: a reconnect never changes it) */
      sandbox?: boolean;
      sandboxKey?: string | null;
      at: Date;
    }) {
      const { at, ...fields } = values;
      // The channel and its `integration.connected` event commit together.
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(integrations)
          .values({ ...fields, createdAt: at, updatedAt: at })
          .onConflictDoUpdate({
            target: [integrations.organizationId, integrations.identifier, integrations.internalId],
            targetWhere: isNull(integrations.deletedAt),
            set: {
              name: fields.name,
              profile: fields.profile,
              picture: fields.picture,
              credentials: fields.credentials,
              tokenExpiresAt: fields.tokenExpiresAt,
              instanceUrl: fields.instanceUrl,
              refreshNeeded: false,
              updatedAt: at,
            },
          })
          .returning({ id: integrations.id, inserted: sql<boolean>`(xmax = 0)` });
        const channel = channelRef({ id: row!.id, identifier: fields.identifier, name: fields.name, sandbox: fields.sandbox });
        await emitEvent(tx, fields.organizationId, 'integration.connected', { integration: channel, reconnected: !row!.inserted, connectedAt: at.toISOString() }, at);
        return row!;
      });
    },

    async findById(id: string) {
      const [row] = await db.select().from(integrations).where(and(eq(integrations.id, id), isNull(integrations.deletedAt)));
      return row;
    },

    /** Points a channel at another account reached by the same grant (page selection). */
    async switchAccount(
      organizationId: string,
      id: string,
      fields: { internalId: string; name: string; profile: string | null; picture: string | null; credentials: string; tokenExpiresAt: Date | null },
      at: Date,
    ) {
      const [row] = await db
        .update(integrations)
        .set({ ...fields, updatedAt: at })
        .where(and(eq(integrations.id, id), eq(integrations.organizationId, organizationId), isNull(integrations.deletedAt)))
        .returning();
      return row;
    },

    /**
     * The time zone of whoever connects a channel: the signed-in person's (`userId`), the person
     * who granted an OAuth token (`oauthTokenId`), else the organisation's first owner with a zone
     * set; null when none is known.
     */
    async findConnectingZone(organizationId: string, by: { userId?: string; oauthTokenId?: string }): Promise<string | null> {
      if (by.userId) {
        const [row] = await db.select({ timezone: users.timezone }).from(users).where(eq(users.id, by.userId));
        if (row?.timezone) return row.timezone;
      } else if (by.oauthTokenId) {
        const [row] = await db
          .select({ timezone: users.timezone })
          .from(oauthAccessTokens)
          .innerJoin(oauthGrants, eq(oauthGrants.id, oauthAccessTokens.grantId))
          .innerJoin(users, eq(users.id, oauthGrants.userId))
          .where(and(eq(oauthAccessTokens.id, by.oauthTokenId), eq(oauthAccessTokens.organizationId, organizationId)));
        if (row?.timezone) return row.timezone;
      }
      const [owner] = await db
        .select({ timezone: users.timezone })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.role, 'owner'), isNotNull(users.timezone)))
        .orderBy(asc(memberships.createdAt))
        .limit(1);
      return owner?.timezone ?? null;
    },

    async insertIntegration(values: NewIntegration) {
      const [row] = await db.insert(integrations).values(values).returning();
      return row!;
    },
  };
}

export type IntegrationsRepository = ReturnType<typeof createIntegrationsRepository>;
