import { z } from 'zod';
import { pageSchema } from '../../lib/pagination.js';

export const NotificationSchema = z
  .object({ id: z.string(), content: z.string(), link: z.string().nullable(), createdAt: z.iso.datetime() })
  .meta({ id: 'Notification' });

export const NotificationsPageSchema = pageSchema('notifications', NotificationSchema);
