import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import type { AnalyticsSeries } from '../../platforms/platform.js';
import type { ChannelAccess } from '../../core/channels/channel-access.js';
import { platformErrorToAppError } from '../../core/channels/platform-errors.js';
import type { IntegrationRow, IntegrationsRepository } from '../integrations/integrations.repository.js';
import { excerptOf, NOT_REPORTED, summariseSeries, toCsv, type OverviewFigures } from './analytics-overview.js';
import type { AnalyticsRepository } from './analytics.repository.js';
import type { AnalyticsOverview, OverviewChannel, OverviewPost } from './analytics.schemas.js';

/** The newest published posts of a period whose figures the overview asks for: a bound on platform calls. */
const OVERVIEW_POSTS = 50;
/** Posts asked about at once (they are mostly on few platforms: keep their rate limits). */
const POSTS_AT_ONCE = 4;
const DAY_MS = 86_400_000;

/**
 * Channel and post figures from the platforms (API.md §5 Analytics), cached briefly per channel
 * so dashboards polling them do not spend the platforms' rate limits.
 */
const NONE: OverviewFigures = { reach: null, impressions: null, engagement: null };

export function createAnalyticsService(deps: {
  integrations: IntegrationsRepository;
  analytics: AnalyticsRepository;
  access: ChannelAccess;
  clock: Clock;
  cacheMs?: number;
  /** the post's short-link clicks as a series (issue 32; none: not shown) */
  linkClicks?: (organizationId: string, postId: string, days: number) => Promise<AnalyticsSeries[]>;
}) {
  const cacheMs = deps.cacheMs ?? 10 * 60_000;
  const cache = new Map<string, { until: number; value: AnalyticsSeries[] }>();

  async function cached(key: string, load: () => Promise<AnalyticsSeries[]>) {
    const now = deps.clock.now();
    const hit = cache.get(key);
    if (hit && hit.until > now) return hit.value;
    const value = await load();
    if (cache.size > 5000) cache.clear();
    cache.set(key, { until: now + cacheMs, value });
    return value;
  }

  async function channelSeries(row: IntegrationRow, days: number): Promise<AnalyticsSeries[]> {
    const adapter = deps.access.adapterOf(row);
    if (!adapter.analytics) return [];
    try {
      return await cached(`c:${row.id}:${days}`, () => deps.access.run(row, (a, ctx) => a.analytics!(days, ctx)));
    } catch (e) {
      throw platformErrorToAppError(e, adapter.metadata.displayName);
    }
  }

  async function postSeries(row: IntegrationRow, postId: string, releaseId: string, days: number): Promise<AnalyticsSeries[]> {
    const adapter = deps.access.adapterOf(row);
    if (!adapter.postAnalytics) return [];
    try {
      return await cached(`p:${postId}:${days}`, () => deps.access.run(row, (a, ctx) => a.postAnalytics!(releaseId, days, ctx)));
    } catch (e) {
      throw platformErrorToAppError(e, adapter.metadata.displayName);
    }
  }

  /** Figures for the overview: a platform's refusal becomes the reason they are missing; anything else is a bug and goes on. */
  async function figuresOf(load: () => Promise<AnalyticsSeries[]>): Promise<{ figures: OverviewFigures; unavailable: string | null }> {
    try {
      return { figures: summariseSeries(await load()), unavailable: null };
    } catch (e) {
      if (e instanceof AppError) return { figures: NONE, unavailable: e.message };
      throw e;
    }
  }

  return {
    async channelAnalytics(organizationId: string, integrationId: string, days: number): Promise<AnalyticsSeries[]> {
      const found = isUuid(integrationId) ? await deps.integrations.findIntegration(organizationId, integrationId) : undefined;
      if (!found) throw notFound('Integration');
      return channelSeries(found.integration, days);
    },

    async postAnalytics(organizationId: string, postId: string, days: number): Promise<AnalyticsSeries[] | { missing: true }> {
      const post = isUuid(postId) ? await deps.analytics.findPost(organizationId, postId) : undefined;
      if (!post) throw notFound('Post');
      if (post.releaseId === 'missing') return { missing: true };
      const clicks = deps.linkClicks ? await deps.linkClicks(organizationId, post.id, days) : [];
      if (!post.releaseId) return clicks;
      const row = await deps.integrations.findById(post.integrationId);
      if (!row) return clicks;
      return [...(await postSeries(row, post.id, post.releaseId, days)), ...clicks];
    },

    /**
     * The overview across the organisation's channels over the last `days` days: per channel the
     * posts it published and its reach, impressions and engagement where its platform reports them
     * (from the same cached channel and post figures as the routes above), and the period's best and
     * worst posts by engagement. A platform that cannot be asked does not fail the overview: its
     * channel says why (`unavailable`) and its figures stay null.
     */
    async overview(organizationId: string, days: number): Promise<AnalyticsOverview> {
      const to = new Date(deps.clock.now());
      const from = new Date(to.getTime() - days * DAY_MS);
      const rows = (await deps.integrations.listIntegrations(organizationId)).map((r) => r.integration);
      const byId = new Map(rows.map((r) => [r.id, r]));
      const counts = new Map((await deps.analytics.countPublished(organizationId, from, to)).map((c) => [c.integrationId, c.posts]));

      const measured: (Omit<OverviewPost, 'engagement'> & { engagement: number | null })[] = [];
      const candidates = await deps.analytics.listPublished(organizationId, [...byId.keys()], from, to, OVERVIEW_POSTS);
      for (let i = 0; i < candidates.length; i += POSTS_AT_ONCE) {
        const batch = await Promise.all(
          candidates.slice(i, i + POSTS_AT_ONCE).map(async (p) => {
            const row = byId.get(p.integrationId)!;
            let engagement: number | null = null;
            if (p.releaseId && p.releaseId !== 'missing') {
              const figures = await figuresOf(() => postSeries(row, p.id, p.releaseId!, days));
              engagement = figures.figures.engagement;
            }
            return { id: p.id, integrationId: p.integrationId, excerpt: excerptOf(p.content), publishDate: p.publishDate.toISOString(), releaseURL: p.releaseUrl, engagement };
          }),
        );
        measured.push(...batch);
      }

      const channels = await Promise.all(
        rows.map(async (row): Promise<OverviewChannel> => {
          const adapter = deps.access.adapterOf(row);
          const { figures, unavailable } = adapter.analytics ? await figuresOf(() => channelSeries(row, days)) : { figures: NONE, unavailable: null };
          const own = measured.filter((p) => p.integrationId === row.id && p.engagement !== null);
          const fromPosts = own.length > 0 ? own.reduce((sum, p) => sum + p.engagement!, 0) : null;
          const engagementFrom = figures.engagement !== null ? 'channel' : fromPosts !== null ? 'posts' : null;
          return {
            id: row.id,
            name: row.name,
            identifier: row.identifier,
            platform: adapter.metadata.displayName,
            picture: row.picture,
            disabled: row.disabled,
            posts: counts.get(row.id) ?? 0,
            reach: figures.reach,
            impressions: figures.impressions,
            engagement: figures.engagement ?? fromPosts,
            engagementFrom,
            unavailable,
          };
        }),
      );

      const ranked = measured.filter((p): p is OverviewPost => p.engagement !== null);
      // most engagement first; among equals the newer post first
      ranked.sort((a, b) => b.engagement - a.engagement || b.publishDate.localeCompare(a.publishDate));
      return {
        days,
        from: from.toISOString(),
        to: to.toISOString(),
        channels,
        best: ranked[0] ?? null,
        worst: ranked.length > 1 ? ranked.at(-1)! : null,
        postsMeasured: candidates.length,
      };
    },

    /** The overview's channels as CSV: a header row, then one row per channel; "not reported" where the platform reports nothing. */
    async overviewCsv(organizationId: string, days: number): Promise<string> {
      const o = await this.overview(organizationId, days);
      const figure = (n: number | null) => n ?? NOT_REPORTED;
      return toCsv([
        ['Channel', 'Platform', 'Posts published', 'Reach', 'Impressions', 'Engagement', 'Note'],
        ...o.channels.map((c) => [c.name, c.platform, c.posts, figure(c.reach), figure(c.impressions), figure(c.engagement), c.unavailable ?? (c.disabled ? 'disabled' : '')]),
      ]);
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
