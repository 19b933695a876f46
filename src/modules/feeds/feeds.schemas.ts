import { z } from 'zod';

const MODES = ['now', 'slot', 'draft'] as const;

const fields = {
  integrationIds: z.array(z.string().max(100)).min(1, 'At least one channel').max(50).describe('the channels new items are posted on'),
  template: z
    .string()
    .max(5000)
    .describe('the post text: `{title}`, `{link}`, `{summary}`, `{author}`, `{hashtags}` (categories as #CamelCase); default "{title} {link}". Cut to each platform\'s length, keeping the link'),
  mode: z.enum(MODES).describe('`now` publishes at once, `slot` at the next free posting time of each channel, `draft` makes drafts for review'),
  pollMinutes: z.number().int().min(5).max(1440).describe('minutes between polls (default 15)'),
};

export const CreateFeedBodySchema = z.object({
  url: z.string().trim().min(1, 'Required').max(2048).describe('the feed (RSS 2.0, RSS 1.0, Atom or JSON Feed); http(s), public addresses only; fetched once to check it'),
  integrationIds: fields.integrationIds,
  template: fields.template.optional(),
  mode: fields.mode.optional().describe('default `now`'),
  backfill: z.number().int().min(0).max(50).optional().describe('post the newest N items of the feed now (default 0: the current items are recorded as skipped)'),
  pollMinutes: fields.pollMinutes.optional(),
});
export type CreateFeedBody = z.infer<typeof CreateFeedBodySchema>;

export const UpdateFeedBodySchema = z.object({
  integrationIds: fields.integrationIds.optional(),
  template: fields.template.optional(),
  mode: fields.mode.optional(),
  pollMinutes: fields.pollMinutes.optional(),
});
export type UpdateFeedBody = z.infer<typeof UpdateFeedBodySchema>;

export const FeedParamsSchema = z.object({ id: z.string().max(100) });
export const FeedItemsQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(200).default(50).describe('default 50') });

export const FeedSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    title: z.string().nullable().describe("the feed's own title"),
    integrationIds: z.array(z.string()),
    template: z.string(),
    mode: z.enum(MODES),
    pollMinutes: z.number().int(),
    status: z.enum(['active', 'failing']).describe('`failing` after 5 failed polls in a row (the organisation was notified); back to `active` when a poll succeeds'),
    failures: z.number().int().describe('failed polls in a row'),
    lastError: z.string().nullable(),
    lastErrorAt: z.iso.datetime().nullable(),
    lastSuccessAt: z.iso.datetime().nullable(),
    nextPollAt: z.iso.datetime().describe('after failures: 15 min doubling up to 24 h'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Feed' });
export type FeedOut = z.infer<typeof FeedSchema>;

export const FeedListSchema = z.object({ feeds: z.array(FeedSchema) });

export const FeedItemSchema = z
  .object({
    key: z.string().describe("the item's guid / id, else its link"),
    title: z.string().nullable(),
    link: z.string().nullable(),
    publishedAt: z.iso.datetime().nullable(),
    firstSeenAt: z.iso.datetime(),
    outcome: z.enum(['posted', 'skipped', 'draft', 'failed', 'pending']).describe('`pending` while its posts are being made'),
    group: z.string().nullable().describe('the group of the posts made from it'),
    posts: z.array(z.object({ postId: z.string(), integration: z.string(), group: z.string() })),
    error: z.string().nullable().describe('why it failed, or what was left out (a channel that refused it, an image that could not be imported)'),
  })
  .meta({ id: 'FeedItem' });
export type FeedItemOut = z.infer<typeof FeedItemSchema>;

export const FeedItemListSchema = z.object({ items: z.array(FeedItemSchema) });
export const DeletedFeedSchema = z.object({ id: z.string(), deleted: z.literal(true) });
