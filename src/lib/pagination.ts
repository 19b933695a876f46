import { z } from 'zod';

/** Pages of the reference's paginated lists (`GET /notifications`, `GET /media`): 100 items, from page 0. */
export const PAGE_SIZE = 100;

export const PageQuerySchema = z.object({
  page: z.coerce.number().int().min(0).max(1_000_000).default(0).describe('page number, from 0'),
});

/** `{ <key>: item[], total, page, limit, hasMore }`, the reference's page shape. */
export function pageSchema<K extends string, T extends z.ZodType>(key: K, item: T) {
  return z.object({ [key]: z.array(item) } as Record<K, z.ZodArray<T>>).extend({
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    hasMore: z.boolean(),
  });
}

/** The page fields that go with `total` items when page `page` of `PAGE_SIZE` is answered. */
export function pageInfo(total: number, page: number) {
  return { total, page, limit: PAGE_SIZE, hasMore: (page + 1) * PAGE_SIZE < total };
}
