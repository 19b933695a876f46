import type { AnalyticsService } from '../../modules/analytics/analytics.service.js';
import {
  AnalyticsDaysQuerySchema,
  AnalyticsOverviewQuerySchema,
  AnalyticsOverviewSchema,
  AnalyticsSeriesSchema,
  ChannelAnalyticsParamsSchema,
  PostAnalyticsParamsSchema,
  PostAnalyticsSchema,
} from '../../modules/analytics/analytics.schemas.js';
import { defineTool } from '../tool.js';

type Series = { label: string; percentageChange: number; data: { total: number | string; date: string }[] }[];

const DAYS = 'how many days to look back, 1 to 365 (e.g. 7 or 30)';
const SERIES =
  'Answers one series per metric the platform reports (followers, impressions, likes…): its `label`, the `percentageChange` over the period, and `data` points of `{ date, total }` (dates as the platform gives them, ISO 8601 UTC days). ' +
  'Figures come from the platform itself and are cached for a few minutes.';

function describeSeries(series: Series): string {
  if (series.length === 0) return 'The platform reports no figures for this period';
  return series.map((s) => `${s.label}: ${s.data.at(-1)?.total ?? '-'} (${s.percentageChange >= 0 ? '+' : ''}${s.percentageChange}%)`).join('; ');
}

/** Analytics: the tools of `modules/analytics/analytics.routes.ts`, on the same service methods. */
export function analyticsTools(analytics: AnalyticsService) {
  return [
    defineTool({
      name: 'get_channel_analytics',
      title: "A channel's figures",
      route: 'GET /analytics/:integrationId',
      description: `The figures of a channel (followers, impressions, reach… as its platform offers) over the last \`days\` days, fetched from the platform. ${SERIES} An empty list: the platform reports none.`,
      input: { params: ChannelAnalyticsParamsSchema, query: AnalyticsDaysQuerySchema },
      rename: { 'params.integrationId': 'channelId', 'query.date': 'days' },
      hints: { channelId: 'the channel id (from list_channels)', days: DAYS },
      output: AnalyticsSeriesSchema,
      outputKey: 'series',
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
      run: (ctx, { params, query }) => analytics.channelAnalytics(ctx.organizationId, params.integrationId, query.date),
      summary: (series) => describeSeries(series),
    }),
    defineTool({
      name: 'get_analytics_overview',
      title: 'Analytics across channels',
      route: 'GET /analytics/overview',
      description:
        'An overview of every channel over the last 7, 30 or 90 days: per channel the posts published and, where its platform reports them, reach, impressions and engagement (`null`: not reported, which is not 0; `unavailable` says why a platform could not be asked), ' +
        'and the best and worst published posts of the period by engagement (`null` when too few report any). Figures come from the platforms and are cached for a few minutes.',
      input: { query: AnalyticsOverviewQuerySchema },
      hints: { days: '7, 30 or 90' },
      output: AnalyticsOverviewSchema,
      outputKey: 'overview',
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
      run: (ctx, { query }) => analytics.overview(ctx.organizationId, query.days),
      summary: (o) =>
        `${o.channels.length} channel(s) over ${o.days} days, ${o.channels.reduce((n, c) => n + c.posts, 0)} post(s) published` +
        (o.best ? `; best post: "${o.best.excerpt}" (${o.best.engagement} engagement)` : ''),
    }),
    defineTool({
      name: 'get_post_analytics',
      title: "A published post's figures",
      route: 'GET /analytics/post/:postId',
      description:
        `The figures of one published post (views, likes, comments… as its platform offers) over the last \`days\` days, fetched from the platform. ${SERIES} ` +
        'An empty list: not published yet, or the platform reports none; `{ missing: true }`: the post was published but its id on the platform is unknown.',
      input: { params: PostAnalyticsParamsSchema, query: AnalyticsDaysQuerySchema },
      rename: { 'query.date': 'days' },
      hints: { postId: 'the post id (from list_posts, get_post or create_posts)', days: DAYS },
      output: PostAnalyticsSchema,
      outputKey: 'analytics',
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
      run: (ctx, { params, query }) => analytics.postAnalytics(ctx.organizationId, params.postId, query.date),
      summary: (r) => (Array.isArray(r) ? describeSeries(r) : "The post's id on the platform is unknown: no figures"),
    }),
  ];
}
