import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.js';
import type { components } from '../../api/schema.js';

export type Notification = components['schemas']['Notification'];

/** How often the bell asks (only while the tab is visible: TanStack Query pauses intervals in hidden tabs). */
export const POLL_MS = 30_000;

export const notificationsKey = (page: number) => ['notifications', page] as const;

/** One page of the organisation's notifications, newest first (GET /notifications?page=N, from 0). */
export function useNotifications(page: number, opts: { poll?: boolean } = {}) {
  return useQuery({
    queryKey: notificationsKey(page),
    queryFn: () => unwrap(api.GET('/notifications', { params: { query: { page } } })),
    ...(opts.poll ? { refetchInterval: POLL_MS, refetchIntervalInBackground: false, refetchOnWindowFocus: true } : {}),
  });
}
