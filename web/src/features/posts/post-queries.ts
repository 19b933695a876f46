import { useMutation, useQuery, useQueryClient, type Query } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.js';
import { queryKeys } from '../../api/queries.js';
import type { AnalyticsSeries } from '../analytics/analytics-data.js';

const SECOND = 1000;

function fetchPost(id: string) {
  return unwrap(api.GET('/posts/{id}', { params: { path: { id } } }));
}

/** GET /posts/{id} as the typed client answers it (PostDetail: state, error, attempts, thread…). */
export type PostDetail = Awaited<ReturnType<typeof fetchPost>>;

/**
 * How soon to read a post again while the publisher still has work on it: just after its next
 * attempt is due, at most every 2 s and at least every minute; not at all once it is settled.
 */
export function pollDelay(post: PostDetail | undefined, now = Date.now()): number | false {
  if (!post) return false;
  const pending = post.state === 'QUEUE' || (post.state === 'PUBLISHED' && post.thread.some((t) => t.state === 'QUEUE'));
  if (!pending) return false;
  if (post.state === 'QUEUE' && post.nextAttemptAt) {
    const wait = Date.parse(post.nextAttemptAt) - now + SECOND;
    return Math.min(60 * SECOND, Math.max(2 * SECOND, wait));
  }
  return post.state === 'QUEUE' ? 3 * SECOND : 15 * SECOND;
}

/** GET /posts/{id}, read again while it is being published. */
export function usePostDetail(id: string) {
  return useQuery({
    queryKey: queryKeys.post(id),
    queryFn: () => fetchPost(id),
    refetchInterval: (query: Query<PostDetail, Error, PostDetail, readonly unknown[]>) => pollDelay(query.state.data),
    refetchOnWindowFocus: true,
  });
}

export const missingKey = (id: string) => ['post-missing', id] as const;

/** GET /posts/{id}/missing: what still blocks the post, and candidates when its platform id is unknown. */
export function useMissing(id: string, enabled: boolean, version: string) {
  return useQuery({
    // the post's updatedAt is part of the key: an edit or a status change asks again
    queryKey: [...missingKey(id), version],
    queryFn: () => unwrap(api.GET('/posts/{id}/missing', { params: { path: { id } } })),
    enabled,
  });
}

export type PostFigures = AnalyticsSeries[] | { missing: true };

/** GET /analytics/post/{postId}?date=N. */
export function usePostAnalytics(id: string, days: number, enabled: boolean) {
  return useQuery({
    queryKey: ['post-analytics', id, days],
    queryFn: (): Promise<PostFigures> => unwrap(api.GET('/analytics/post/{postId}', { params: { path: { postId: id }, query: { date: days } } })),
    enabled,
    staleTime: 5 * 60_000,
    // another period of the same post keeps its figures on screen until the new ones arrive
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[1] === id ? previous : undefined),
  });
}

/** Everything that shows this post (calendar, lists, this page) is read again after a change. */
function useRefreshPost(id: string) {
  const qc = useQueryClient();
  return async () => {
    await Promise.all([
      qc.invalidateQueries({ queryKey: ['posts'] }),
      qc.invalidateQueries({ queryKey: queryKeys.post(id) }),
      qc.invalidateQueries({ queryKey: missingKey(id) }),
    ]);
  };
}

/** PUT /posts/{id}/status: "schedule" queues a draft or retries a failed post; "draft" takes a queued post out. */
export function useChangeStatus(id: string) {
  const refresh = useRefreshPost(id);
  return useMutation({
    mutationFn: (status: 'draft' | 'schedule') => unwrap(api.PUT('/posts/{id}/status', { params: { path: { id } }, body: { status } })),
    onSuccess: refresh,
  });
}

/** PUT /posts/{id}/release-id: record which platform post this is. */
export function useRecordRelease(id: string) {
  const refresh = useRefreshPost(id);
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { releaseId: string; releaseURL?: string }) => unwrap(api.PUT('/posts/{id}/release-id', { params: { path: { id } }, body })),
    onSuccess: async (post) => {
      qc.setQueryData(queryKeys.post(id), post);
      await Promise.all([refresh(), qc.invalidateQueries({ queryKey: ['post-analytics', id] })]);
    },
  });
}

/** DELETE /posts/{id} (with its thread items); `onDeleted` leaves the page before its data is dropped. */
export function useDeletePost(id: string, onDeleted: () => void) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/posts/{id}', { params: { path: { id } } })),
    onSuccess: async () => {
      onDeleted();
      qc.removeQueries({ queryKey: queryKeys.post(id) });
      qc.removeQueries({ queryKey: missingKey(id) });
      await qc.invalidateQueries({ queryKey: ['posts'] });
    },
  });
}
