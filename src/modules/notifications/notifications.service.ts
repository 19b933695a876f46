import { PAGE_SIZE, pageInfo } from '../../lib/pagination.js';
import type { Clock } from '../../lib/clock.js';
import type { NotificationsRepository } from './notifications.repository.js';

export function createNotificationsService(deps: { notifications: NotificationsRepository; clock: Clock }) {
  return {
    /**
     * Newest first, pages of 100 (the reference's page size): the organisation's, and the signed-in
     * member's own (`userId`, e.g. their @mentions); an API key or token sees the organisation's only.
     */
    async listNotifications(organizationId: string, page: number, userId?: string) {
      const { rows, total } = await deps.notifications.listPage(organizationId, page * PAGE_SIZE, PAGE_SIZE, userId);
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

    /** Writes a message for one member of the organisation (an @mention): only they see it. */
    async notifyMember(organizationId: string, userId: string, content: string, link: string | null = null) {
      return deps.notifications.insertNotification({ organizationId, userId, content, link, createdAt: new Date(deps.clock.now()) });
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
