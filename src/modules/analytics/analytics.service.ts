import { notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import type { AnalyticsSeries } from '../../platforms/platform.js';
import type { ChannelAccess } from '../../core/channels/channel-access.js';
import { platformErrorToAppError } from '../../core/channels/platform-errors.js';
import type { IntegrationsRepository } from '../integrations/integrations.repository.js';
import type { AnalyticsRepository } from './analytics.repository.js';

/**
 * Channel and post figures from the platforms (API.md §5 Analytics), cached briefly per channel
 * so dashboards polling them do not spend the platforms' rate limits.
 */
export function createAnalyticsService(deps: {
  integrations: IntegrationsRepository;
  analytics: AnalyticsRepository;
  access: ChannelAccess;
  clock: Clock;
  cacheMs?: number;
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

  return {
    async channelAnalytics(organizationId: string, integrationId: string, days: number): Promise<AnalyticsSeries[]> {
      const found = isUuid(integrationId) ? await deps.integrations.findIntegration(organizationId, integrationId) : undefined;
      if (!found) throw notFound('Integration');
      const row = found.integration;
      const adapter = deps.access.adapterOf(row);
      if (!adapter.analytics) return [];
      try {
        return await cached(`c:${row.id}:${days}`, () => deps.access.run(row, (a, ctx) => a.analytics!(days, ctx)));
      } catch (e) {
        throw platformErrorToAppError(e, adapter.metadata.displayName);
      }
    },

    async postAnalytics(organizationId: string, postId: string, days: number): Promise<AnalyticsSeries[] | { missing: true }> {
      const post = isUuid(postId) ? await deps.analytics.findPost(organizationId, postId) : undefined;
      if (!post) throw notFound('Post');
      if (post.releaseId === 'missing') return { missing: true };
      if (!post.releaseId) return [];
      const row = await deps.integrations.findById(post.integrationId);
      if (!row) return [];
      const adapter = deps.access.adapterOf(row);
      if (!adapter.postAnalytics) return [];
      const releaseId = post.releaseId;
      try {
        return await cached(`p:${post.id}:${days}`, () => deps.access.run(row, (a, ctx) => a.postAnalytics!(releaseId, days, ctx)));
      } catch (e) {
        throw platformErrorToAppError(e, adapter.metadata.displayName);
      }
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
