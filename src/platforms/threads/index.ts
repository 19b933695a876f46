import { percentageChange } from '../common/figures.js';
import { htmlToText } from '../common/html.js';
import { buildAuthorizeUrl, exchangeCode, type OAuthApp } from '../common/oauth2.js';
import { PlatformError, type AnalyticsSeries, type ConnectedAccount, type PlatformAdapter, type PostDraft, type ValidationIssue } from '../platform.js';
import { countGraphemes } from '../text-length.js';
import { threadsMetadata } from './metadata.js';
import { advance, parseToken, publishItem, recentPosts, threadsCreds, threadsGraph, tokenCall, type ThreadsCredentials, type TokenAnswer } from './client.js';
import { countThreadsText, THREADS_LINK_LIMIT, THREADS_TEXT_LIMIT, threadsLinks } from './text.js';

export { THREADS_API_VERSION, THREADS_GRAPH, THREADS_WEB, type ThreadsCredentials } from './client.js';

const DAY_MS = 86_400_000;
/**
 * The token is renewed this long before it stops working. The channel's recorded expiry is moved
 * that much earlier, so that any use of the channel in its token's last ten days renews it (the
 * service refreshes tokens that are about to expire before using them); Threads only renews a
 * token that has not expired yet.
 */
export const RENEW_BEFORE_MS = 10 * DAY_MS;
/** Threads' insights start on 13 April 2024 (earlier `since` values are refused). */
const INSIGHTS_EPOCH_S = 1712991600;

/** Pictures the service could re-encode for other platforms, but which Threads would fetch as stored. */

/** When the channel should be renewed: ten days before the token expires (at once for a token shorter than that). */
export function renewAt(expiresAt: Date | null, now: number): Date | null {
  return expiresAt ? new Date(Math.max(now, expiresAt.getTime() - RENEW_BEFORE_MS)) : null;
}

function expiryOf(body: TokenAnswer, now: number): Date | null {
  const s = Number(body.expires_in);
  return Number.isFinite(s) && s > 0 ? new Date(now + s * 1000) : null;
}

/** Series of one figure per label, dated today (Threads gives totals for these, not days). */
function totals(now: number, figures: [label: string, total: number | undefined][]): AnalyticsSeries[] {
  const date = new Date(now).toISOString().slice(0, 10);
  return figures.map(([label, total]) => ({ label, percentageChange: 0, data: [{ total: total ?? 0, date }] }));
}

interface Insight {
  name: string;
  period?: string;
  values?: { value: number; end_time?: string }[];
  total_value?: { value: number };
}

// The profile's `views` are views of the profile (posts' views are per post); followers_count is today's
// total whatever the period.
const USER_METRICS: [metric: string, label: string][] = [
  ['views', 'Profile views'],
  ['likes', 'Likes'],
  ['replies', 'Replies'],
  ['reposts', 'Reposts'],
  ['quotes', 'Quotes'],
  ['followers_count', 'Followers'],
];
const POST_METRICS: [metric: string, label: string][] = [
  ['views', 'Views'],
  ['likes', 'Likes'],
  ['replies', 'Replies'],
  ['reposts', 'Reposts'],
  ['quotes', 'Quotes'],
  ['shares', 'Shares'],
];

/**
 * Creates the Threads adapter: OAuth 2 (no PKCE: Threads does not take it) with the short-lived
 * token exchanged at once for a 60-day one (`th_exchange_token`) and renewed with
 * `th_refresh_token`; posts, pictures, videos and carousels as containers Threads fetches from the
 * media's public URL and processes, then publishes; thread items as replies (`reply_to_id`) to the
 * item before.
 */
export function createThreadsAdapter(config: { app?: OAuthApp } = {}): PlatformAdapter {
  function app(): OAuthApp {
    const a = config.app;
    if (!a?.clientId || !a.clientSecret) throw new PlatformError('unsupported', 'Threads is not configured on this server: set THREADS_CLIENT_ID and THREADS_CLIENT_SECRET');
    return a;
  }

  return {
    metadata: threadsMetadata,

    async beginConnect(input) {
      return { url: buildAuthorizeUrl(threadsMetadata.oauth!, { clientId: app().clientId, redirectUri: input.redirectUri, state: input.state }) };
    },

    /**
     * Exchanges the code for the short-lived (1 h) token, that one at once for the long-lived
     * (60-day) token, and reads the profile with it. Not retried: codes are single use.
     */
    async completeConnect(input, ctx): Promise<ConnectedAccount> {
      const a = app();
      const short = await exchangeCode(ctx.http, { tokenUrl: threadsMetadata.oauth!.tokenUrl, app: a, code: input.code, redirectUri: input.redirectUri, clientAuth: 'body', now: ctx.clock.now() });
      const long = await tokenCall(ctx, '/access_token', { grant_type: 'th_exchange_token', client_secret: a.clientSecret, access_token: short.accessToken });
      const me = await threadsGraph(ctx, long.access_token!).get<{ id: string; username?: string; name?: string; threads_profile_picture_url?: string }>('/me', {
        fields: 'id,username,name,threads_profile_picture_url',
      });
      const expiresAt = expiryOf(long, ctx.clock.now());
      const credentials: ThreadsCredentials = { accessToken: long.access_token!, userId: me.id, username: me.username ?? '', expiresAt: expiresAt?.toISOString() ?? null };
      return {
        internalId: me.id,
        name: me.name || me.username || me.id,
        profile: me.username ?? null,
        picture: me.threads_profile_picture_url ?? null,
        credentials: { ...credentials },
        expiresAt: renewAt(expiresAt, ctx.clock.now()),
      };
    },

    /**
     * Renews the long-lived token (`th_refresh_token`: no client secret, no refresh token — the
     * token renews itself while it is valid and at least a day old). A token Threads no longer
     * takes (expired, revoked) cannot be renewed: `reconnect_required`.
     */
    async refresh(ctx) {
      const c = threadsCreds(ctx);
      let body: TokenAnswer;
      try {
        body = await tokenCall(ctx, '/refresh_access_token', { grant_type: 'th_refresh_token', access_token: c.accessToken });
      } catch (e) {
        if (e instanceof PlatformError && (e.kind === 'auth_expired' || e.kind === 'reconnect_required' || e.kind === 'rejected')) {
          throw new PlatformError('reconnect_required', e.message, e.details);
        }
        throw e;
      }
      const expiresAt = expiryOf(body, ctx.clock.now());
      const next: ThreadsCredentials = { ...c, accessToken: body.access_token!, expiresAt: expiresAt?.toISOString() ?? c.expiresAt };
      return { credentials: { ...next }, expiresAt: renewAt(expiresAt, ctx.clock.now()) };
    },

    /**
     * Threads' own rules: its character count (an emoji counts its UTF-8 bytes) and at most five
     * links. Pictures are fetched as stored (`pulled` in the metadata), which the generic check enforces.
     */
    validate(post: PostDraft): ValidationIssue[] {
      const issues: ValidationIssue[] = [];
      post.items.forEach((item, i) => {
        const text = htmlToText(item.content);
        const length = countThreadsText(text);
        // Past 500 graphemes the generic length check has said so already.
        if (length > THREADS_TEXT_LIMIT && countGraphemes(text) <= THREADS_TEXT_LIMIT) {
          issues.push({
            path: `value.${i}.content`,
            code: 'too_long',
            message: `Threads allows ${THREADS_TEXT_LIMIT} characters, an emoji counting as its UTF-8 bytes (👍 is 4); this text counts ${length}`,
          });
        }
        const links = threadsLinks(text).length;
        if (links > THREADS_LINK_LIMIT) {
          issues.push({ path: `value.${i}.content`, code: 'too_many_links', message: `Threads allows at most ${THREADS_LINK_LIMIT} links in a post; this one has ${links}` });
        }
      });
      return issues;
    },

    /**
     * Makes the item's container(s) and publishes what is ready at once. Not idempotent by
     * itself (a container is new each time; Threads has no idempotency key), but once a container
     * exists nothing is published blindly: a publish that cannot finish now answers `pending`,
     * and `checkPublish` reads the container's state before publishing it. Thread items reply to
     * the item before (`replyTo.id`).
     */
    async publish({ item, replyTo }, ctx) {
      return publishItem(ctx, threadsCreds(ctx), item, replyTo?.id);
    },

    /**
     * Goes on with a `pending` publish: carousel items → carousel container → status →
     * `threads_publish` → permalink. Idempotent: a container already PUBLISHED (an earlier check
     * whose answer was lost) is found among the account's posts, never published again; a check
     * that fails is simply made again with the same token.
     */
    async checkPublish(token, ctx) {
      const c = threadsCreds(ctx);
      return advance(ctx, c, parseToken(token, c));
    },

    async findRecent(input, ctx) {
      return recentPosts(ctx, threadsCreds(ctx), input);
    },

    /**
     * The profile's insights over the last `days`: profile views per day, and the period's totals
     * of likes, replies, reposts and quotes, with today's follower count.
     */
    async analytics(days, ctx) {
      const c = threadsCreds(ctx);
      const now = ctx.clock.now();
      const until = Math.floor(now / 1000);
      // Whole days (UTC): today and the `days - 1` before it.
      const since = Math.max(INSIGHTS_EPOCH_S, (Math.floor(now / DAY_MS) - Math.max(1, Math.floor(days)) + 1) * 86_400);
      const res = await threadsGraph(ctx, c.accessToken).get<{ data?: Insight[] }>(`/${c.userId}/threads_insights`, {
        metric: USER_METRICS.map(([m]) => m).join(','),
        since: String(since),
        until: String(until),
      });
      const byName = new Map((res.data ?? []).map((d) => [d.name, d]));
      const today = new Date(now).toISOString().slice(0, 10);
      return USER_METRICS.map(([metric, label]): AnalyticsSeries => {
        const d = byName.get(metric);
        if (d?.values?.length) {
          // Each day's value ends at its end_time (Pacific midnight): the day is the one before.
          const data = d.values.map((v) => ({ total: v.value, date: v.end_time ? new Date(Date.parse(v.end_time) - 1).toISOString().slice(0, 10) : today }));
          return { label, percentageChange: percentageChange(data), data };
        }
        return { label, percentageChange: 0, data: [{ total: d?.total_value?.value ?? 0, date: today }] };
      });
    },

    /** The post's lifetime insights (Threads gives them per post, not per day). */
    async postAnalytics(postId, _days, ctx) {
      const c = threadsCreds(ctx);
      const res = await threadsGraph(ctx, c.accessToken).get<{ data?: Insight[] }>(`/${encodeURIComponent(postId)}/insights`, { metric: POST_METRICS.map(([m]) => m).join(',') });
      const byName = new Map((res.data ?? []).map((d) => [d.name, d]));
      return totals(
        ctx.clock.now(),
        POST_METRICS.map(([metric, label]) => {
          const d = byName.get(metric);
          return [label, d?.values?.[0]?.value ?? d?.total_value?.value];
        }),
      );
    },
  };
}
