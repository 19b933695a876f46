import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.js';
import type { components, paths } from '../../api/schema.js';

export type PreviewLink = components['schemas']['PreviewLink'];
export type CreatePreviewLinkBody = paths['/preview-links']['post']['requestBody']['content']['application/json'];
export type PreviewTarget = CreatePreviewLinkBody['target'];

export const previewLinkKeys = {
  all: ['preview-links'] as const,
  list: (group: string | undefined) => ['preview-links', group ?? ''] as const,
};

/** The organisation's preview links (of one post group when `group` is given), newest first. */
export function usePreviewLinks(group: string | undefined, enabled = true) {
  return useQuery({
    queryKey: previewLinkKeys.list(group),
    queryFn: async () => (await unwrap(api.GET('/preview-links', { params: { query: group === undefined ? {} : { group } } }))).links,
    enabled,
  });
}

/** POST /preview-links: the link and its URL (the token, this once). */
export function useCreatePreviewLink() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreatePreviewLinkBody) => unwrap(api.POST('/preview-links', { body })),
    onSuccess: () => client.invalidateQueries({ queryKey: previewLinkKeys.all }),
  });
}

export function useRevokePreviewLink() {
  const client = useQueryClient();
  return useMutation({
    // 204, no body: unwrap answers undefined, or throws the refusal
    mutationFn: (id: string) => unwrap(api.DELETE('/preview-links/{id}', { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: previewLinkKeys.all }),
  });
}
