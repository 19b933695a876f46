import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from './client.js';
import type { components, paths } from './schema.js';

/**
 * The shapes and reads the app's pages share. Each feature keeps its own mutations; these are
 * the lists several pages show (channels, groups, a channel's rules). Query keys are the
 * invalidation contract: a mutation that changes channels invalidates ['integrations'], posts
 * ['posts'], groups ['groups'], media ['media'].
 */
export type Integration = components['schemas']['Integration'];
export type Group = components['schemas']['Group'];
export type Post = components['schemas']['Post'];
export type PostDetail = components['schemas']['PostDetail'];
export type MediaItem = components['schemas']['MediaItem'];
export type PlatformIdentifier = components['schemas']['PlatformIdentifier'];
export type PostState = Post['state'];
export type IntegrationSettings = paths['/integration-settings/{id}']['get']['responses'][200]['content']['application/json']['output'];
export type CreatePostsBody = paths['/posts']['post']['requestBody']['content']['application/json'];

export const queryKeys = {
  integrations: ['integrations'] as const,
  groups: ['groups'] as const,
  settings: (id: string) => ['integration-settings', id] as const,
  posts: (startDate: string, endDate: string, customer?: string) => ['posts', startDate, endDate, customer ?? ''] as const,
  post: (id: string) => ['post', id] as const,
  media: (page: number) => ['media', page] as const,
};

/** The organisation's channels (GET /integrations). */
export function useIntegrations() {
  return useQuery({ queryKey: queryKeys.integrations, queryFn: () => unwrap(api.GET('/integrations')) });
}

/** Client groups (GET /groups). */
export function useGroups() {
  return useQuery({ queryKey: queryKeys.groups, queryFn: () => unwrap(api.GET('/groups')) });
}

/** A channel's rules: text limit and counting, media rules, settings schema, tools, defaults. */
export function useIntegrationSettings(id: string | undefined) {
  return useQuery({
    queryKey: queryKeys.settings(id ?? ''),
    queryFn: async () => (await unwrap(api.GET('/integration-settings/{id}', { params: { path: { id: id! } } }))).output,
    enabled: Boolean(id),
    staleTime: 5 * 60_000,
  });
}

/** Posts whose publish date is in [startDate, endDate] (ISO instants), optionally one client group's. */
export function usePosts(startDate: string, endDate: string, customer?: string) {
  return useQuery({
    queryKey: queryKeys.posts(startDate, endDate, customer),
    queryFn: async () => (await unwrap(api.GET('/posts', { params: { query: { startDate, endDate, ...(customer ? { customer } : {}) } } }))).posts,
  });
}

export type VideoProvider = components['schemas']['VideoProviders']['providers'][number];
export type VideoJob = components['schemas']['VideoJob'];
export type VideoCredits = components['schemas']['VideoCredits'];
export type GenerateVideoBody = paths['/generate-video']['post']['requestBody']['content']['application/json'];

/** The Video page's reads: a generation invalidates ['video'] (jobs and credits both change). */
export const videoKeys = {
  providers: ['video', 'providers'] as const,
  credits: ['video', 'credits'] as const,
  jobs: ['video', 'jobs'] as const,
  fn: (identifier: string, functionName: string) => ['video', 'function', identifier, functionName] as const,
};

/** The video providers of this deployment (GET /video/providers); empty when generation is off. */
export function useVideoProviders() {
  return useQuery({ queryKey: videoKeys.providers, queryFn: async () => (await unwrap(api.GET('/video/providers'))).providers, staleTime: 5 * 60_000 });
}

/** This month's video credits of the organisation (GET /video/credits). */
export function useVideoCredits() {
  return useQuery({ queryKey: videoKeys.credits, queryFn: () => unwrap(api.GET('/video/credits')) });
}

export type PlatformReadiness = components['schemas']['PlatformReadiness'];

/**
 * The platforms this deployment can connect (GET /platforms): which are ready, and what an
 * administrator must register for the others. Changes only when the server is reconfigured.
 */
export function usePlatforms() {
  return useQuery({ queryKey: ['platforms'] as const, queryFn: () => unwrap(api.GET('/platforms')), staleTime: 5 * 60_000 });
}
