import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { aiSettings } from '../../db/schema/index.js';

export type AiSettingsRow = typeof aiSettings.$inferSelect;

/** The organisation's model endpoint for the writing help (`ai_settings`): SQL only. */
export function createAssistRepository(db: Db) {
  return {
    async findSettings(organizationId: string): Promise<AiSettingsRow | undefined> {
      const [row] = await db.select().from(aiSettings).where(eq(aiSettings.organizationId, organizationId));
      return row;
    },

    /** Writes the organisation's one row (created or replaced whole). */
    async saveSettings(values: AiSettingsRow): Promise<AiSettingsRow> {
      const { organizationId: _id, ...rest } = values;
      const [row] = await db.insert(aiSettings).values(values).onConflictDoUpdate({ target: aiSettings.organizationId, set: rest }).returning();
      return row!;
    },

    /** Answers whether there was a row. */
    async deleteSettings(organizationId: string): Promise<boolean> {
      const rows = await db.delete(aiSettings).where(eq(aiSettings.organizationId, organizationId)).returning({ id: aiSettings.organizationId });
      return rows.length > 0;
    },
  };
}

export type AssistRepository = ReturnType<typeof createAssistRepository>;
