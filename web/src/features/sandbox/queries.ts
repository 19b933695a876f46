import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, unwrap } from '../../api/client.js';
import { queryKeys, useIntegrations, usePlatforms, type Integration, type PlatformIdentifier } from '../../api/queries.js';
import type { components, paths } from '../../api/schema.js';

/**
 * Sandbox channels (issue 28): a channel of a platform that runs the platform's adapter against its
 * simulator inside Tidings. Which platforms have one is the server's word (GET /platforms `sandbox`);
 * the app never keeps its own list.
 */
export type SandboxFeed = components['schemas']['SandboxFeed'];
export type SandboxFeedItem = SandboxFeed['items'][number];
export type SandboxFaults = components['schemas']['SandboxFaults'];
export type SandboxFaultBody = paths['/sandbox/channels/{id}/faults']['post']['requestBody']['content']['application/json'];
export type SandboxFaultKind = SandboxFaultBody['kind'];

export const sandboxKeys = {
  feed: (id: string) => ['sandbox', 'feed', id] as const,
  faults: (id: string) => ['sandbox', 'faults', id] as const,
};

/** The platforms with a sandbox kit on this deployment, in the order the server lists them. */
export function useSandboxPlatforms(): { platforms: PlatformIdentifier[]; isPending: boolean } {
  const platforms = usePlatforms();
  const list = useMemo(() => (platforms.data ?? []).filter((p) => p.sandbox).map((p) => p.identifier), [platforms.data]);
  return { platforms: list, isPending: platforms.isPending };
}

/** Preferred for "Try it": a short-text network, a decentralised one and a messenger; else the first three offered. */
const TRY_PREFERRED: PlatformIdentifier[] = ['x', 'bluesky', 'telegram'];

/** The three platforms "Try it with sandbox channels" connects (fewer when fewer are offered). */
export function trySandboxPlatforms(offered: readonly PlatformIdentifier[]): PlatformIdentifier[] {
  const picked = TRY_PREFERRED.filter((p) => offered.includes(p));
  for (const p of offered) {
    if (picked.length >= 3) break;
    if (!picked.includes(p)) picked.push(p);
  }
  return picked.slice(0, 3);
}

/** The ids of the organisation's sandbox channels (from GET /integrations; posts do not carry the flag). */
export function useSandboxIds(): ReadonlySet<string> {
  const integrations = useIntegrations();
  return useMemo(() => new Set((integrations.data ?? []).filter((i) => i.sandbox).map((i) => i.id)), [integrations.data]);
}

/** POST /sandbox/channels: connects (or, with `refresh`, reconnects) a sandbox channel. */
export function useConnectSandbox() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { identifier: PlatformIdentifier; name?: string; refresh?: string }): Promise<Integration> =>
      unwrap(api.POST('/sandbox/channels', { body })),
    // the checklist reads GET /onboarding again when the channels change (useOnboarding)
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.integrations }),
  });
}

/** What the sandbox platform holds for a channel (oldest first). */
export function useSandboxFeed(id: string) {
  return useQuery({ queryKey: sandboxKeys.feed(id), queryFn: () => unwrap(api.GET('/sandbox/channels/{id}/feed', { params: { path: { id } } })) });
}

/** The channel's outages in progress (down, slow). */
export function useSandboxFaults(id: string) {
  return useQuery({ queryKey: sandboxKeys.faults(id), queryFn: () => unwrap(api.GET('/sandbox/channels/{id}/faults', { params: { path: { id } } })) });
}

/** POST a fault, or DELETE the outages; both answer the outages in progress. */
export function useSandboxFaultMutations(id: string) {
  const queryClient = useQueryClient();
  const settle = async (faults: SandboxFaults) => {
    queryClient.setQueryData(sandboxKeys.faults(id), faults);
    // a "revoked" fault makes the channel need a reconnect
    await queryClient.invalidateQueries({ queryKey: queryKeys.integrations });
  };
  return {
    inject: useMutation({
      mutationFn: (body: SandboxFaultBody) => unwrap(api.POST('/sandbox/channels/{id}/faults', { params: { path: { id } }, body })),
      onSuccess: settle,
    }),
    end: useMutation({
      mutationFn: () => unwrap(api.DELETE('/sandbox/channels/{id}/faults', { params: { path: { id } } })),
      onSuccess: settle,
    }),
  };
}
