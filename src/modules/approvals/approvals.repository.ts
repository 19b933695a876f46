import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { apiKeys, approvalRules, customers, integrations, memberships, posts, users, type ApprovalRuleRow, type ApprovalStatus, type MemberRole } from '../../db/schema/index.js';
import { isUuid } from '../../lib/ids.js';

export type NewApprovalRule = Pick<ApprovalRuleRow, 'organizationId' | 'name' | 'scope' | 'scopeId' | 'approverRoles' | 'approverUserIds' | 'reapproveOnEdit' | 'createdAt' | 'updatedAt'>;

const OPEN: ApprovalStatus[] = ['pending_approval', 'changes_requested'];

/** Approval rules, and the reads the approval queue and its notifications need. */
export function createApprovalsRepository(db: Db) {
  return {
    async listRules(organizationId: string, q: Db | Tx = db) {
      return q.select().from(approvalRules).where(eq(approvalRules.organizationId, organizationId)).orderBy(asc(sql`lower(${approvalRules.name})`), asc(approvalRules.id));
    },

    async findRule(organizationId: string, id: string) {
      if (!isUuid(id)) return undefined;
      const [row] = await db.select().from(approvalRules).where(and(eq(approvalRules.organizationId, organizationId), eq(approvalRules.id, id)));
      return row;
    },

    /** The new rule; undefined when the scope already has one (the unique index). */
    async insertRule(values: NewApprovalRule) {
      const [row] = await db.insert(approvalRules).values(values).onConflictDoNothing().returning();
      return row;
    },

    async updateRule(organizationId: string, id: string, patch: Partial<NewApprovalRule>) {
      const [row] = await db
        .update(approvalRules)
        .set(patch)
        .where(and(eq(approvalRules.organizationId, organizationId), eq(approvalRules.id, id)))
        .returning();
      return row;
    },

    async deleteRule(organizationId: string, id: string) {
      if (!isUuid(id)) return undefined;
      const [row] = await db.delete(approvalRules).where(and(eq(approvalRules.organizationId, organizationId), eq(approvalRules.id, id))).returning();
      return row;
    },

    async channelExists(organizationId: string, id: string) {
      if (!isUuid(id)) return false;
      const [row] = await db.select({ id: integrations.id }).from(integrations).where(and(eq(integrations.organizationId, organizationId), eq(integrations.id, id), isNull(integrations.deletedAt)));
      return row !== undefined;
    },

    async customerExists(organizationId: string, id: string) {
      if (!isUuid(id)) return false;
      const [row] = await db.select({ id: customers.id }).from(customers).where(and(eq(customers.organizationId, organizationId), eq(customers.id, id)));
      return row !== undefined;
    },

    /** Members of the organisation among `userIds` (the ids a rule may name). */
    async membersAmong(organizationId: string, userIds: string[]) {
      const valid = [...new Set(userIds.filter(isUuid))];
      if (valid.length === 0) return [];
      return db.select({ userId: memberships.userId }).from(memberships).where(and(eq(memberships.organizationId, organizationId), inArray(memberships.userId, valid)));
    },

    /** Members with one of `roles` or among `userIds`, with what a notification and a mail need. */
    async approvers(organizationId: string, roles: MemberRole[], userIds: string[]) {
      const ids = userIds.filter(isUuid);
      const rows = await db
        .select({ id: users.id, name: users.name, email: users.email, role: memberships.role })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(eq(memberships.organizationId, organizationId));
      return rows.filter((r) => roles.includes(r.role) || ids.includes(r.id));
    },

    async user(id: string) {
      if (!isUuid(id)) return undefined;
      const [row] = await db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(eq(users.id, id));
      return row;
    },

    /** Post groups awaiting a decision (`status`: one, or both open ones): their roots and channels, oldest date first. */
    async openRoots(organizationId: string, status: ApprovalStatus[] = OPEN) {
      return db
        .select({
          post: posts,
          integration: { id: integrations.id, identifier: integrations.identifier, name: integrations.name, picture: integrations.picture, customerId: integrations.customerId },
        })
        .from(posts)
        .innerJoin(integrations, eq(integrations.id, posts.integrationId))
        .where(
          and(
            eq(posts.organizationId, organizationId),
            inArray(posts.approval, status),
            isNull(posts.parentPostId),
            isNull(posts.deletedAt),
            isNull(integrations.deletedAt),
          ),
        )
        .orderBy(asc(posts.publishDate), asc(posts.group), asc(posts.id))
        .limit(1000);
    },

    /** The channels (with client group) of some ids. */
    async channels(organizationId: string, ids: string[], q: Db | Tx = db) {
      const valid = [...new Set(ids.filter(isUuid))];
      if (valid.length === 0) return [];
      return q
        .select({ id: integrations.id, name: integrations.name, identifier: integrations.identifier, customerId: integrations.customerId, sandbox: integrations.sandbox })
        .from(integrations)
        .where(and(eq(integrations.organizationId, organizationId), inArray(integrations.id, valid)));
    },

    async setKeyExempt(organizationId: string, id: string, exempt: boolean) {
      if (!isUuid(id)) return undefined;
      const [row] = await db
        .update(apiKeys)
        .set({ approvalExempt: exempt })
        .where(and(eq(apiKeys.organizationId, organizationId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id, name: apiKeys.name, approvalExempt: apiKeys.approvalExempt });
      return row;
    },

    /** Still-open posts whose time has passed and that were not reported for that time yet (the expiry sweep), locked. */
    async lockExpired(tx: Tx, now: Date, limit = 200) {
      return tx
        .select()
        .from(posts)
        .where(
          and(
            inArray(posts.approval, OPEN),
            isNull(posts.parentPostId),
            isNull(posts.deletedAt),
            sql`${posts.publishDate} <= ${now.toISOString()}::timestamptz`,
            sql`${posts.approvalReportedFor} is distinct from ${posts.publishDate}`,
          ),
        )
        .orderBy(asc(posts.publishDate))
        .limit(limit)
        .for('update', { skipLocked: true });
    },
  };
}

export type ApprovalsRepository = ReturnType<typeof createApprovalsRepository>;
