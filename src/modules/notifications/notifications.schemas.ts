import { z } from 'zod';

export const NOTIFICATIONS_PAGE_SIZE = 100;

export const NotificationSchema = z
  .object({ id: z.string(), content: z.string(), link: z.string().nullable(), createdAt: z.iso.datetime() })
  .meta({ id: 'Notification' });

export const NotificationsQuerySchema = z.object({
  page: z.coerce.number().int().min(0).max(1_000_000).default(0).describe('page number, from 0'),
});

export const NotificationsPageSchema = z.object({
  notifications: z.array(NotificationSchema),
  total: z.number().int(),
  page: z.number().int(),
  limit: z.number().int(),
  hasMore: z.boolean(),
});
