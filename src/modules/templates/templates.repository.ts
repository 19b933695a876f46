import { and, asc, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.js';
import { integrations, organizations, postTemplates, signatures } from '../../db/schema/index.js';

export type TemplateRow = typeof postTemplates.$inferSelect;
export type SignatureRow = typeof signatures.$inferSelect;
export type TemplatePatch = Partial<Pick<TemplateRow, 'name' | 'description' | 'body' | 'updatedAt'>>;
export type SignaturePatch = Partial<Pick<SignatureRow, 'name' | 'content' | 'autoAdd' | 'integrationIds' | 'updatedAt'>>;

/** Post templates and signatures of an organisation: SQL only. */
export function createTemplatesRepository(db: Db) {
  const ownedTemplate = (organizationId: string, id: string) => and(eq(postTemplates.id, id), eq(postTemplates.organizationId, organizationId));
  const ownedSignature = (organizationId: string, id: string) => and(eq(signatures.id, id), eq(signatures.organizationId, organizationId));

  return {
    /**
     * Runs `fn` in a transaction holding the organisation's row lock: the checks of one write (a
     * unique name, overlapping auto-add signatures) and the write itself are not raced by another.
     */
    async lockedForOrg<T>(organizationId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
      return db.transaction(async (tx) => {
        await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, organizationId)).for('update');
        return fn(tx);
      });
    },

    listTemplates: (organizationId: string) =>
      db.select().from(postTemplates).where(eq(postTemplates.organizationId, organizationId)).orderBy(asc(sql`lower(${postTemplates.name})`), asc(postTemplates.id)),

    async findTemplate(organizationId: string, id: string, q: Tx | Db = db) {
      const [row] = await q.select().from(postTemplates).where(ownedTemplate(organizationId, id));
      return row;
    },

    /** A template of the organisation named `name` (case-insensitively), other than `exceptId`. */
    async findTemplateByName(tx: Tx, organizationId: string, name: string, exceptId?: string) {
      const [row] = await tx
        .select({ id: postTemplates.id })
        .from(postTemplates)
        .where(and(eq(postTemplates.organizationId, organizationId), eq(sql`lower(${postTemplates.name})`, name.toLowerCase()), exceptId ? ne(postTemplates.id, exceptId) : undefined));
      return row;
    },

    async insertTemplate(tx: Tx, values: typeof postTemplates.$inferInsert) {
      const [row] = await tx.insert(postTemplates).values(values).returning();
      return row!;
    },

    async updateTemplate(tx: Tx, organizationId: string, id: string, patch: TemplatePatch) {
      const [row] = await tx.update(postTemplates).set(patch).where(ownedTemplate(organizationId, id)).returning();
      return row;
    },

    async deleteTemplate(organizationId: string, id: string) {
      const [row] = await db.delete(postTemplates).where(ownedTemplate(organizationId, id)).returning({ id: postTemplates.id });
      return row;
    },

    listSignatures: (organizationId: string, q: Tx | Db = db) =>
      q.select().from(signatures).where(eq(signatures.organizationId, organizationId)).orderBy(asc(sql`lower(${signatures.name})`), asc(signatures.id)),

    async findSignature(organizationId: string, id: string, q: Tx | Db = db) {
      const [row] = await q.select().from(signatures).where(ownedSignature(organizationId, id));
      return row;
    },

    async insertSignature(tx: Tx, values: typeof signatures.$inferInsert) {
      const [row] = await tx.insert(signatures).values(values).returning();
      return row!;
    },

    async updateSignature(tx: Tx, organizationId: string, id: string, patch: SignaturePatch) {
      const [row] = await tx.update(signatures).set(patch).where(ownedSignature(organizationId, id)).returning();
      return row;
    },

    async deleteSignature(organizationId: string, id: string) {
      const [row] = await db.delete(signatures).where(ownedSignature(organizationId, id)).returning({ id: signatures.id });
      return row;
    },

    /** The live channels of the organisation among `ids`. */
    listChannels: (organizationId: string, ids: string[]) =>
      ids.length === 0
        ? Promise.resolve([])
        : db
            .select({ id: integrations.id })
            .from(integrations)
            .where(and(eq(integrations.organizationId, organizationId), isNull(integrations.deletedAt), inArray(integrations.id, ids))),
  };
}

export type TemplatesRepository = ReturnType<typeof createTemplatesRepository>;
