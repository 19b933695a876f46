import { z } from 'zod';

/** Figures of a channel or a post: one series per metric (followers, impressions, likes…), by day. */
export const AnalyticsSeriesSchema = z
  .array(z.object({ label: z.string(), percentageChange: z.number(), data: z.array(z.object({ total: z.union([z.number(), z.string()]), date: z.string() })) }))
  .meta({ id: 'Analytics' });

export const AnalyticsDaysQuerySchema = z.object({ date: z.coerce.number().int().min(1).max(365).describe('days to look back') });

export const ChannelAnalyticsParamsSchema = z.object({ integrationId: z.string() });
export const PostAnalyticsParamsSchema = z.object({ postId: z.string() });

/** A post's figures, or `{ missing: true }` when its id on the platform is unknown. */
export const PostAnalyticsSchema = z.union([AnalyticsSeriesSchema, z.object({ missing: z.literal(true) })]);

/** The periods the overview offers. */
export const OVERVIEW_PERIODS = [7, 30, 90] as const;

export const AnalyticsOverviewQuerySchema = z.object({
  days: z.coerce
    .number()
    .pipe(z.union(OVERVIEW_PERIODS.map((d) => z.literal(d)), { error: 'must be 7, 30 or 90' }))
    .describe('the period in days: the last 7, 30 or 90'),
});

const Figure = (what: string) => z.number().nullable().describe(`${what} over the period; null: the platform does not report it`);

export const OverviewChannelSchema = z.object({
  id: z.string(),
  name: z.string(),
  identifier: z.string().describe('the platform'),
  platform: z.string().describe("the platform's display name"),
  picture: z.string().nullable(),
  disabled: z.boolean(),
  posts: z.number().int().describe('posts published in the period (thread items not counted)'),
  reach: Figure('reach'),
  impressions: Figure('impressions or views'),
  engagement: Figure("engagement: the platform's own total, or its likes, replies, reposts… added up; from the channel's figures, else from its posts' of the period"),
  engagementFrom: z.enum(['channel', 'posts']).nullable().describe("where engagement comes from: the channel's figures or its posts' of the period"),
  unavailable: z.string().nullable().describe('why the platform could not be asked (e.g. the channel needs reconnecting); its figures are then null'),
});

export const OverviewPostSchema = z.object({
  id: z.string(),
  integrationId: z.string(),
  excerpt: z.string().describe("the post's text, without markup, shortened"),
  publishDate: z.string(),
  releaseURL: z.string().nullable(),
  engagement: z.number(),
});

/** The overview across channels: per channel what it published and its figures, and the period's best and worst posts. */
export const AnalyticsOverviewSchema = z
  .object({
    days: z.number().int(),
    from: z.string().describe('start of the period (ISO 8601)'),
    to: z.string().describe('end of the period (ISO 8601)'),
    channels: z.array(OverviewChannelSchema),
    best: OverviewPostSchema.nullable().describe('the published post of the period with the most engagement; null when no post reports engagement'),
    worst: OverviewPostSchema.nullable().describe('the one with the least (null when fewer than two report engagement)'),
    postsMeasured: z.number().int().describe('published posts whose figures were asked for (the newest, up to a limit)'),
  })
  .meta({ id: 'AnalyticsOverview' });

export type AnalyticsOverview = z.infer<typeof AnalyticsOverviewSchema>;
export type OverviewChannel = z.infer<typeof OverviewChannelSchema>;
export type OverviewPost = z.infer<typeof OverviewPostSchema>;
