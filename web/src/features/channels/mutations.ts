import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure, unwrap } from '../../api/client.js';
import { queryKeys } from '../../api/queries.js';
import type { paths } from '../../api/schema.js';

export type UpdateChannelBody = paths['/integrations/{id}']['put']['requestBody']['content']['application/json'];

/** PUT /integrations/{id}: name, disabled, client group, posting times. */
export function useUpdateChannel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateChannelBody }) => unwrap(api.PUT('/integrations/{id}', { params: { path: { id } }, body })),
    onSuccess: async (_saved, { body }) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.integrations });
      // the calendar filters posts by client group
      if (body.customer !== undefined) await queryClient.invalidateQueries({ queryKey: ['posts'] });
    },
  });
}

/** DELETE /integrations/{id}: queued posts of the channel end ERROR "channel disconnected". */
export function useRemoveChannel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/integrations/{id}', { params: { path: { id } } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.integrations });
      await queryClient.invalidateQueries({ queryKey: ['posts'] });
      await queryClient.invalidateQueries({ queryKey: ['post'] });
    },
  });
}

/** Client groups: create, rename, delete (its channels stay, without a group). */
export function useGroupMutations() {
  const queryClient = useQueryClient();
  const changed = async (channelsToo: boolean) => {
    await queryClient.invalidateQueries({ queryKey: queryKeys.groups });
    if (channelsToo) {
      await queryClient.invalidateQueries({ queryKey: queryKeys.integrations });
      await queryClient.invalidateQueries({ queryKey: ['posts'] });
    }
  };
  return {
    create: useMutation({
      mutationFn: (name: string) => unwrap(api.POST('/groups', { body: { name } })),
      onSuccess: () => changed(false),
    }),
    rename: useMutation({
      mutationFn: ({ id, name }: { id: string; name: string }) => unwrap(api.PUT('/groups/{id}', { params: { path: { id } }, body: { name } })),
      // channels carry their group's name
      onSuccess: () => changed(true),
    }),
    remove: useMutation({
      mutationFn: (id: string) => unwrap(api.DELETE('/groups/{id}', { params: { path: { id } } })),
      onSuccess: () => changed(true),
    }),
  };
}

/** The API's message for one field (`name`, `postingTimes.0.time`…), if its refusal named it. */
export function fieldMessage(error: unknown, path: string): string | undefined {
  if (!(error instanceof ApiFailure)) return undefined;
  return error.body.fields?.find((f) => f.path === path || f.path.startsWith(`${path}.`))?.message;
}

/** The refusal, unless it is only about the named fields (those show on the fields). */
export function otherError(error: unknown, paths: readonly string[]): unknown {
  if (!(error instanceof ApiFailure)) return error;
  const fields = error.body.fields ?? [];
  return fields.length > 0 && fields.every((f) => paths.some((p) => f.path === p || f.path.startsWith(`${p}.`))) ? null : error;
}
