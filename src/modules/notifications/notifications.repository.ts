import { and, count, desc, eq, isNull, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { notifications } from '../../db/schema/index.js';

export function createNotificationsRepository(db: Db) {
  /** the organisation's own notifications, and those for one member when `userId` is given (never other members') */
  const live = (organizationId: string, userId?: string) =>
    and(
      eq(notifications.organizationId, organizationId),
      isNull(notifications.deletedAt),
      userId === undefined ? isNull(notifications.userId) : or(isNull(notifications.userId), eq(notifications.userId, userId)),
    );
  return {
    async listPage(organizationId: string, offset: number, limit: number, userId?: string) {
      const [rows, [total]] = await Promise.all([
        db
          .select()
          .from(notifications)
          .where(live(organizationId, userId))
          .orderBy(desc(notifications.createdAt), desc(notifications.id))
          .limit(limit)
          .offset(offset),
        db.select({ n: count() }).from(notifications).where(live(organizationId, userId)),
      ]);
      return { rows, total: total?.n ?? 0 };
    },
    async insertNotification(values: { organizationId: string; userId?: string | null; content: string; link?: string | null; createdAt?: Date }) {
      const [row] = await db.insert(notifications).values(values).returning();
      return row!;
    },
  };
}

export type NotificationsRepository = ReturnType<typeof createNotificationsRepository>;
