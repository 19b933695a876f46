import { PAGE_SIZE, pageInfo } from '../../lib/pagination.js';
import type { Clock } from '../../lib/clock.js';
import type { NotificationsRepository } from './notifications.repository.js';

export function createNotificationsService(deps: { notifications: NotificationsRepository; clock: Clock }) {
  return {
    /** Newest first, pages of 100 (the reference's page size). */
    async listNotifications(organizationId: string, page: number) {
      const { rows, total } = await deps.notifications.listPage(organizationId, page * PAGE_SIZE, PAGE_SIZE);
      return {
        notifications: rows.map((r) => ({
          id: r.id,
          content: r.content,
          link: r.link,
          createdAt: r.createdAt.toISOString(),
        })),
        ...pageInfo(total, page),
      };
    },

    /** Writes an organisation-level message (publisher outcomes, channel problems…). */
    async notify(organizationId: string, content: string, link: string | null = null) {
      return deps.notifications.insertNotification({
        organizationId,
        content,
        link,
        createdAt: new Date(deps.clock.now()),
      });
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
