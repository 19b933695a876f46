import { percentageChange } from '../common/figures.js';
import type { OAuthApp } from '../common/oauth2.js';
import { PlatformError, type AnalyticsSeries, type ConnectedAccount, type PlatformAdapter } from '../platform.js';
import {
  administeredPages,
  dailyPageStatistics,
  linkedinAuthorizeUrl,
  linkedinConnect,
  linkedinPublishing,
  linkedinRefresh,
  linkedinRest,
  pageCreds,
  pageRest,
  postShareStatistics,
  requireApp,
  tokenCredentials,
  type LinkedinCredentials,
  type ShareStatistics,
} from './client.js';
import { linkedinPageMetadata } from './metadata.js';

const DAY = 86_400_000;

const SHARE_FIGURES: [label: string, key: keyof ShareStatistics][] = [
  ['Impressions', 'impressionCount'],
  ['Unique impressions', 'uniqueImpressionsCount'],
  ['Clicks', 'clickCount'],
  ['Likes', 'likeCount'],
  ['Comments', 'commentCount'],
  ['Shares', 'shareCount'],
];

/**
 * Creates the LinkedIn Page adapter. Connecting lists the organisations the member administers
 * and connects the first of them; the `pages` tool lists them all and `selectAccount`
 * (`PUT /integrations/{id}/account`) switches the channel to another. Posts and comments are authored by `urn:li:organization:{id}`.
 */
export function createLinkedinPageAdapter(config: { app?: OAuthApp } = {}): PlatformAdapter {
  const publishing = linkedinPublishing();
  const displayName = linkedinPageMetadata.displayName;

  return {
    metadata: linkedinPageMetadata,

    async beginConnect(input) {
      const app = requireApp(config.app);
      return { url: linkedinAuthorizeUrl(linkedinPageMetadata, app, input) };
    },

    async completeConnect(input, ctx): Promise<ConnectedAccount> {
      const app = requireApp(config.app);
      const { tokens, member } = await linkedinConnect(linkedinPageMetadata, app, input, ctx);
      const pages = await administeredPages(linkedinRest(ctx, tokens.accessToken, tokens.refreshToken !== null));
      const page = pages[0];
      if (!page) throw new PlatformError('rejected', `${member.name} administers no LinkedIn page: a page administrator must connect it`);
      const credentials: LinkedinCredentials = {
        ...tokenCredentials(tokens),
        memberUrn: `urn:li:person:${member.sub}`,
        authorUrn: page.urn,
        organizationId: page.id,
      };
      // The logo is a digital-media URN, not a URL: no picture.
      return { internalId: page.id, name: page.name, profile: page.vanityName, picture: null, credentials: { ...credentials }, expiresAt: tokens.expiresAt };
    },

    /** Switches the channel to another page the member administers (listed by the `pages` tool). */
    async selectAccount(id, ctx): Promise<ConnectedAccount> {
      const c = pageCreds(ctx);
      const pages = await administeredPages(pageRest(ctx, c));
      const page = pages.find((p) => p.id === id || p.urn === id);
      if (!page) throw new PlatformError('rejected', `The connected LinkedIn member does not administer page ${id}`);
      const credentials: LinkedinCredentials = { ...c, authorUrn: page.urn, organizationId: page.id };
      return { internalId: page.id, name: page.name, profile: page.vanityName, picture: null, credentials: { ...credentials }, expiresAt: c.expiresAt ? new Date(c.expiresAt) : null };
    },

    refresh: (ctx) => linkedinRefresh(linkedinPageMetadata, config.app, ctx),

    validate: publishing.validate,

    /**
     * Publishes a page post, or a comment on it (as the page) for thread items. NOT idempotent:
     * LinkedIn refuses an exact duplicate (422 `DUPLICATE_POST`) instead of recognising a retry,
     * so an unknown outcome must be reconciled with `findRecent`. Videos may answer `pending`.
     */
    publish: (input, ctx) => publishing.publish(input, ctx),
    checkPublish: (token, ctx) => publishing.checkPublish(token, ctx),
    findRecent: (input, ctx) => publishing.findRecent(input, ctx),

    async runTool(methodName, _data, ctx) {
      if (methodName !== 'pages') throw new PlatformError('unsupported', `${displayName} has no tool "${methodName}"`);
      const c = pageCreds(ctx);
      const pages = await administeredPages(pageRest(ctx, c));
      return pages.map((p) => ({ ...p, current: p.id === c.organizationId }));
    },

    /** New followers and the page's daily share statistics over the last `days` complete days (UTC). */
    async analytics(days, ctx): Promise<AnalyticsSeries[]> {
      const c = pageCreds(ctx);
      const end = Math.floor(ctx.clock.now() / DAY) * DAY;
      const start = end - Math.max(1, Math.floor(days)) * DAY;
      const { followers, shares } = await dailyPageStatistics(pageRest(ctx, c), c.authorUrn, start, end);
      const dates: string[] = [];
      for (let t = start; t < end; t += DAY) dates.push(new Date(t).toISOString().slice(0, 10));
      const byDay = <T extends { timeRange?: { start: number } }>(elements: T[] | undefined) =>
        new Map((elements ?? []).filter((e) => e.timeRange).map((e) => [new Date(e.timeRange!.start).toISOString().slice(0, 10), e]));
      const series = (label: string, value: (date: string) => number): AnalyticsSeries => {
        const data = dates.map((date) => ({ date, total: value(date) }));
        return { label, percentageChange: percentageChange(data), data };
      };
      const f = byDay(followers.elements);
      const s = byDay(shares.elements);
      return [
        series('New followers', (d) => (f.get(d)?.followerGains?.organicFollowerGain ?? 0) + (f.get(d)?.followerGains?.paidFollowerGain ?? 0)),
        ...SHARE_FIGURES.map(([label, key]) => series(label, (d) => s.get(d)?.totalShareStatistics?.[key] ?? 0)),
      ];
    },

    /** Lifetime share statistics of one page post (LinkedIn gives them per post, not per day). */
    async postAnalytics(postId, _days, ctx): Promise<AnalyticsSeries[]> {
      const c = pageCreds(ctx);
      const stats = await postShareStatistics(pageRest(ctx, c), c.authorUrn, postId);
      const date = new Date(ctx.clock.now()).toISOString().slice(0, 10);
      return SHARE_FIGURES.map(([label, key]) => ({ label, percentageChange: 0, data: [{ total: stats[key] ?? 0, date }] }));
    },
  };
}
