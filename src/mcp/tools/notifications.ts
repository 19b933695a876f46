import type { NotificationsService } from '../../modules/notifications/notifications.service.js';
import { NotificationsPageSchema } from '../../modules/notifications/notifications.schemas.js';
import { PageQuerySchema } from '../../lib/pagination.js';
import { defineTool } from '../tool.js';

/** Notifications: the tool of `modules/notifications/notifications.routes.ts`. */
export function notificationTools(notifications: NotificationsService) {
  return [
    defineTool({
      name: 'list_notifications',
      title: "List the organisation's notifications",
      route: 'GET /notifications',
      description:
        'Messages the service wrote for the organisation, newest first, 100 per page (`page` from 0): posts published or failed, channels that must be reconnected, webhooks disabled, videos made… ' +
        'Each has its text (`content`), an optional `link` to what it is about, and `createdAt` (ISO 8601, UTC). `hasMore` says whether the next page has more.',
      input: { query: PageQuerySchema },
      output: NotificationsPageSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { query }) => notifications.listNotifications(ctx.organizationId, query.page),
      summary: (p) =>
        `${p.notifications.length} of ${p.total} notification(s) on page ${p.page}${p.hasMore ? '; more on the next page' : ''}` +
        (p.notifications.length ? `: ${p.notifications.slice(0, 5).map((n) => `${n.createdAt} ${n.content}`).join('; ')}` : ''),
    }),
  ];
}
