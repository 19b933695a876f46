import { and, count, desc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { notifications } from '../../db/schema/index.js';

export function createNotificationsRepository(db: Db) {
  const live = (organizationId: string) =>
    and(eq(notifications.organizationId, organizationId), isNull(notifications.deletedAt));
  return {
    async listPage(organizationId: string, offset: number, limit: number) {
      const [rows, [total]] = await Promise.all([
        db
          .select()
          .from(notifications)
          .where(live(organizationId))
          .orderBy(desc(notifications.createdAt), desc(notifications.id))
          .limit(limit)
          .offset(offset),
        db.select({ n: count() }).from(notifications).where(live(organizationId)),
      ]);
      return { rows, total: total?.n ?? 0 };
    },
    async insertNotification(values: { organizationId: string; content: string; link?: string | null; createdAt?: Date }) {
      const [row] = await db.insert(notifications).values(values).returning();
      return row!;
    },
  };
}

export type NotificationsRepository = ReturnType<typeof createNotificationsRepository>;
