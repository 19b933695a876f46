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

export type MoveGroupResult = { ok: true; publishDate: string; posts: string[] } | { ok: false; error: unknown };

/**
 * Moves every post of a group (all its channels, with their thread items) to `date` through
 * PUT /posts/group/{group}/date, optimistically like `reschedule`; a refusal puts the cache back.
 */
export async function moveGroup(queryClient: QueryClient, group: string, date: string): Promise<MoveGroupResult> {
  await queryClient.cancelQueries({ queryKey: ['posts'] });
  const before = queryClient.getQueriesData<CalendarPost[]>({ queryKey: ['posts'] });
  queryClient.setQueriesData<CalendarPost[]>({ queryKey: ['posts'] }, (old) => old?.map((p) => (p.group === group ? { ...p, publishDate: date } : p)));
  try {
    const moved = await unwrap(api.PUT('/posts/group/{group}/date', { params: { path: { group } }, body: { date } }));
    return { ok: true, publishDate: moved.publishDate, posts: moved.posts.map((p) => p.id) };
  } catch (error) {
    for (const [key, data] of before) queryClient.setQueryData(key, data);
    return { ok: false, error };
  } finally {
    void queryClient.invalidateQueries({ queryKey: ['posts'] });
  }
}

/** Where each post of a moved group was: what Undo puts back. */
export interface GroupPlace {
  group: string;
  posts: { id: string; publishDate: string }[];
}

/**
 * Undo of a group move: the group goes back to its time in one request; a group whose posts were
 * at different times (moved one by one through the API) gets each post back to its own.
 */
export async function moveBack(queryClient: QueryClient, place: GroupPlace): Promise<{ ok: true } | { ok: false; error: unknown }> {
  const times = [...new Set(place.posts.map((p) => p.publishDate))];
  if (times.length === 1) {
    const r = await moveGroup(queryClient, place.group, times[0]!);
    return r.ok ? { ok: true } : r;
  }
  for (const p of place.posts) {
    const r = await reschedule(queryClient, p.id, p.publishDate);
    if (!r.ok) return r;
  }
  return { ok: true };
}
