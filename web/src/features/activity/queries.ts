import { useInfiniteQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.js';
import type { components } from '../../api/schema.js';

export type ActivityEntry = components['schemas']['ActivityEntry'];

export interface ActivityFilters {
  actorKind?: ActivityEntry['actor']['kind'];
  /** an action prefix (`post.`) or an exact action */
  action?: string;
  targetKind?: string;
  /** yyyy-mm-dd, in the person's time zone is not needed: whole UTC days are close enough for a filter */
  from?: string;
  to?: string;
}

export const PAGE_SIZE = 50;

/** The activity log, newest first, a page at a time ("Load more" fetches the next with `nextCursor`). */
export function useActivity(filters: ActivityFilters) {
  return useInfiniteQuery({
    queryKey: ['activity', filters],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/activity', {
          params: {
            query: {
              limit: PAGE_SIZE,
              ...(pageParam ? { cursor: pageParam } : {}),
              ...(filters.actorKind ? { actorKind: filters.actorKind } : {}),
              ...(filters.action ? { action: filters.action } : {}),
              ...(filters.targetKind ? { targetKind: filters.targetKind } : {}),
              // whole days: from the start of `from` to the end of `to` (UTC)
              ...(filters.from ? { from: `${filters.from}T00:00:00Z` } : {}),
              ...(filters.to ? { to: new Date(Date.parse(`${filters.to}T00:00:00Z`) + 24 * 3600_000).toISOString() } : {}),
            },
          },
        }),
      ),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
