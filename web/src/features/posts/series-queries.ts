import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.js';
import type { paths } from '../../api/schema.js';

/** Query keys of repeating posts: every change invalidates ['series'] and ['posts'] (occurrences are posts). */
export const seriesKeys = {
  all: ['series'] as const,
  one: (id: string) => ['series', id] as const,
};

export type SeriesDetail = paths['/series/{id}']['get']['responses'][200]['content']['application/json'];
export type SeriesListItem = paths['/series']['get']['responses'][200]['content']['application/json']['series'][number];
export type PatchSeriesBody = paths['/series/{id}']['patch']['requestBody']['content']['application/json'];

/** One template post as the series keeps it (a POST /posts `posts` entry). */
export interface TemplatePost {
  integration: { id: string };
  value: { content?: string; image?: unknown[]; delay?: number; [key: string]: unknown }[];
  settings?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The template's posts (the body every occurrence is made from). */
export function templatePosts(template: Record<string, unknown> | undefined): TemplatePost[] {
  const posts = template?.['posts'];
  return Array.isArray(posts) ? (posts as TemplatePost[]) : [];
}

export function useSeries(id: string | null | undefined) {
  return useQuery({
    queryKey: seriesKeys.one(id ?? ''),
    queryFn: () => unwrap(api.GET('/series/{id}', { params: { path: { id: id! } } })),
    enabled: Boolean(id),
  });
}

export function useSeriesList() {
  return useQuery({ queryKey: seriesKeys.all, queryFn: async () => (await unwrap(api.GET('/series'))).series });
}

function useInvalidate() {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: seriesKeys.all });
    void client.invalidateQueries({ queryKey: ['posts'] });
    void client.invalidateQueries({ queryKey: ['post'] });
  };
}

/** "This and following": PATCH /series/{id} with scope following from a post. */
export function useEditFollowing(id: string, onDone?: (res: { series: { id: string } }) => void) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (body: Omit<PatchSeriesBody, 'scope'>) => unwrap(api.PATCH('/series/{id}', { params: { path: { id } }, body: { scope: 'following', ...body } })),
    onSuccess: (res) => {
      invalidate();
      onDone?.(res);
    },
  });
}

/** "Stop repeating": DELETE /series/{id} (unpublished occurrences go, published ones stay). */
export function useStopSeries(onDone?: (res: { deleted: number; kept: number }) => void) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async (id: string) => {
      const res = await unwrap(api.DELETE('/series/{id}', { params: { path: { id } } }));
      return { deleted: res.deleted.length, kept: res.kept };
    },
    onSuccess: (res) => {
      invalidate();
      onDone?.(res);
    },
  });
}
