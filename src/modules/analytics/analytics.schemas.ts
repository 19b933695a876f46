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
