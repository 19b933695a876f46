import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.js';
import type { components } from '../../api/schema.js';

export type PostComment = components['schemas']['PostComment'];

export const commentsKey = (group: string) => ['comments', group] as const;

/** GET /posts/group/{group}/comments: the thread of a post group, oldest first. */
export function useComments(group: string) {
  return useQuery({
    queryKey: commentsKey(group),
    queryFn: () => unwrap(api.GET('/posts/group/{group}/comments', { params: { path: { group }, query: {} } })),
    refetchOnWindowFocus: true,
  });
}

/** GET /members (the settings page's list): whom a comment can @mention. */
export function useMentionable() {
  return useQuery({ queryKey: ['members'], queryFn: () => unwrap(api.GET('/members')), staleTime: 60_000 });
}

export function useAddComment(group: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { body: string; mentions: string[] }) => unwrap(api.POST('/posts/group/{group}/comments', { params: { path: { group } }, body })),
    onSuccess: () => client.invalidateQueries({ queryKey: commentsKey(group) }),
  });
}

export function useUpdateComment(group: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...body }: { id: string; resolved?: boolean }) => unwrap(api.PATCH('/comments/{id}', { params: { path: { id } }, body })),
    onSettled: () => client.invalidateQueries({ queryKey: commentsKey(group) }),
  });
}

export function useDeleteComment(group: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/comments/{id}', { params: { path: { id } } })),
    onSettled: () => client.invalidateQueries({ queryKey: commentsKey(group) }),
  });
}
