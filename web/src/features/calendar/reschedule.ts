import type { QueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.js';
import type { CalendarPost } from './calendarModel.js';

export type RescheduleResult = { ok: true; publishDate: string } | { ok: false; error: unknown };

/**
 * Moves a queued post or draft to `date` (PUT /posts/{id}/date), optimistically: every cached
 * period shows it at the new time at once; a refusal puts the cache back as it was. The posts
 * are asked for again either way (['posts']).
 */
export async function reschedule(queryClient: QueryClient, postId: string, date: string): Promise<RescheduleResult> {
  await queryClient.cancelQueries({ queryKey: ['posts'] });
  const before = queryClient.getQueriesData<CalendarPost[]>({ queryKey: ['posts'] });
  queryClient.setQueriesData<CalendarPost[]>({ queryKey: ['posts'] }, (old) => old?.map((p) => (p.id === postId ? { ...p, publishDate: date } : p)));
  try {
    const moved = await unwrap(api.PUT('/posts/{id}/date', { params: { path: { id: postId } }, body: { date } }));
    return { ok: true, publishDate: moved.publishDate };
  } catch (error) {
    for (const [key, data] of before) queryClient.setQueryData(key, data);
    return { ok: false, error };
  } finally {
    void queryClient.invalidateQueries({ queryKey: ['posts'] });
  }
}
