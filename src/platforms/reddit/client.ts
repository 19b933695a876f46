import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { decodeHtmlEntities } from '../common/html-markup.js';
import { PlatformError, type Credentials, type OperationContext, type PlatformHttp, type PlatformResponse } from '../platform.js';
import { redditError, redditJsonData, redditOk } from './errors.js';

/**
 * Reddit's API client: every request on `oauth.reddit.com` with the bearer token and the
 * descriptive User-Agent Reddit demands, the media lease and its S3 upload, submissions, comments,
 * the user's listings and the subreddit reads of the tools; the shapes of their answers.
 */

export const REDDIT_API = 'https://oauth.reddit.com';
export const REDDIT_WWW = 'https://www.reddit.com';

/** What a connected Reddit channel stores (sealed by the caller). */
export interface RedditCredentials {
  accessToken: string;
  /** present because `duration=permanent` is asked for; Reddit keeps it until revoked */
  refreshToken: string | null;
  userId: string;
  username: string;
}

/** What a Reddit channel stores, read with readCredentials (refreshToken may be absent: null). */
const StoredRedditCredentials = z.object({
  accessToken: z.string().min(1),
  username: z.string().min(1),
  userId: z.string().min(1),
  refreshToken: z.string().nullish().transform((v) => v ?? null),
});

export function creds(ctx: { credentials: Credentials }): RedditCredentials {
  const c = readCredentials(ctx, StoredRedditCredentials, 'Reddit');
  return { accessToken: c.accessToken, refreshToken: c.refreshToken, userId: c.userId, username: c.username };
}

export interface ListingChild {
  kind: string;
  data: { id: string; name: string; title: string; subreddit: string; permalink: string; created_utc: number; selftext?: string; url?: string };
}
interface Listing {
  kind: 'Listing';
  data: { children: ListingChild[] };
}

/** A comment (`t1`) of a user's comment listing. */
export interface CommentChild {
  kind: string;
  data: { id: string; name: string; body: string; link_id: string; parent_id: string; permalink?: string; created_utc: number };
}
export interface CommentListing {
  kind: 'Listing';
  data: { children: CommentChild[]; after: string | null };
}

interface SubredditSearch {
  data?: { children?: { kind: string; data: { id: string; title: string; display_name: string; subreddit_type: string } }[] };
}

interface SubredditAbout {
  kind?: string;
  data?: { display_name: string; submission_type?: string; allow_images?: boolean; allow_videos?: boolean };
}

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

/** Every request, the token ones included, carries the descriptive User-Agent Reddit demands. */
function withUserAgent(http: PlatformHttp, userAgent: string): PlatformHttp {
  return { request: (req) => http.request({ ...req, headers: { 'user-agent': userAgent, ...req.headers } }) };
}

/** A submission's URL: the one Reddit gave when it is a comments page, else built from the subreddit and the id. */
export function postUrl(sr: string, fullname: string, given?: string): string {
  if (given && /^https:\/\/(www\.)?reddit\.com\/(r|user)\/[^/]+\/comments\//.test(given)) return given;
  return `${REDDIT_WWW}/r/${sr}/comments/${fullname.replace(/^t3_/, '')}/`;
}

/** The requests, each sent with `userAgent`. */
export function redditClient(userAgent: string) {
  function api(ctx: Ctx, token: string, method: 'GET' | 'POST', path: string, form?: Record<string, string>): Promise<PlatformResponse> {
    return withUserAgent(ctx.http, userAgent).request({
      method,
      url: `${REDDIT_API}${path}`,
      headers: { authorization: `bearer ${token}`, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
  }

  return {
    /** The context's client with the User-Agent, for the OAuth token calls. */
    http: (ctx: Pick<OperationContext, 'http'>) => withUserAgent(ctx.http, userAgent),

    /** `GET /api/v1/me`: the token's user. */
    async me(ctx: Ctx, token: string) {
      return redditOk<{ id: string; name: string; icon_img?: string }>(await api(ctx, token, 'GET', '/api/v1/me?raw_json=1'), ctx.clock.now());
    },

    /** Uploads one file through Reddit's media lease (`POST /api/media/asset.json`, then the S3 form); answers the URL to submit. */
    async upload(ctx: Ctx, c: RedditCredentials, file: Blob, filepath: string, mimetype: string): Promise<string> {
      const lease = redditOk<{ args?: { action?: string; fields?: { name: string; value: string }[] } }>(
        await api(ctx, c.accessToken, 'POST', '/api/media/asset.json', { filepath, mimetype }),
        ctx.clock.now(),
      );
      const action = lease?.args?.action;
      const fields = lease?.args?.fields;
      if (!action || !Array.isArray(fields)) throw new PlatformError('transient', 'Reddit gave no media upload lease');
      const target = action.startsWith('//') ? `https:${action}` : action;
      const form = new FormData();
      for (const f of fields) form.append(f.name, f.value);
      // S3 reads the fields up to the file: the file comes last.
      form.append('file', file, filepath);
      const res = await withUserAgent(ctx.http, userAgent).request({ method: 'POST', url: target, body: form });
      const text = typeof res.body === 'string' ? res.body : '';
      if (res.status >= 400) {
        const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? `HTTP ${res.status}`;
        // A store failure (5xx) may be retried with a new lease; a refusal (too large, bad type) is final.
        throw new PlatformError(res.status >= 500 ? 'transient' : 'rejected', `Reddit media upload failed: ${message}`, { status: res.status });
      }
      const location = /<Location>([^<]+)<\/Location>/.exec(text)?.[1];
      if (location) return decodeHtmlEntities(location);
      const key = fields.find((f) => f.name === 'key')?.value;
      if (!key) throw new PlatformError('transient', 'Reddit media upload answered without a location');
      return `${target}/${encodeURIComponent(key)}`;
    },

    /** `POST /api/submit`: the new submission's id and URL, or none (image and video posts). */
    async submit(ctx: Ctx, c: RedditCredentials, form: Record<string, string>) {
      return redditJsonData<{ id?: string; name?: string; url?: string }>(await api(ctx, c.accessToken, 'POST', '/api/submit', form), ctx.clock.now());
    },

    /** `POST /api/comment` under the fullname `thingId`. */
    async comment(ctx: Ctx, c: RedditCredentials, thingId: string, text: string) {
      const res = await api(ctx, c.accessToken, 'POST', '/api/comment', { api_type: 'json', thing_id: thingId, text });
      return redditJsonData<{ things?: { data?: { id: string; name?: string; permalink?: string } }[] }>(res, ctx.clock.now());
    },

    /** The user's recent submissions, newest first. */
    async submitted(ctx: Ctx, c: RedditCredentials, limit: number): Promise<ListingChild['data'][]> {
      const listing = redditOk<Listing>(
        await api(ctx, c.accessToken, 'GET', `/user/${encodeURIComponent(c.username)}/submitted?limit=${limit}&sort=new&raw_json=1`),
        ctx.clock.now(),
      );
      return (listing?.data?.children ?? []).filter((ch) => ch.kind === 't3').map((ch) => ch.data);
    },

    /** One page of the user's comments, newest first, from `after`. */
    async comments(ctx: Ctx, c: RedditCredentials, pageSize: number, after: string | null): Promise<CommentListing> {
      const q = new URLSearchParams({ sort: 'new', limit: String(pageSize), raw_json: '1', ...(after ? { after } : {}) });
      return redditOk<CommentListing>(await api(ctx, c.accessToken, 'GET', `/user/${encodeURIComponent(c.username)}/comments?${q.toString()}`), ctx.clock.now());
    },

    /** `GET /subreddits/search`: public subreddits matching `word`. */
    async searchSubreddits(ctx: Ctx, c: RedditCredentials, word: string) {
      const q = new URLSearchParams({ q: word, limit: '10', show: 'public', sort: 'activity', show_users: 'false', raw_json: '1' });
      return redditOk<SubredditSearch>(await api(ctx, c.accessToken, 'GET', `/subreddits/search?${q.toString()}`), ctx.clock.now());
    },

    /** `GET /r/{sr}/about`. */
    async subredditAbout(ctx: Ctx, c: RedditCredentials, sr: string) {
      return redditOk<SubredditAbout>(await api(ctx, c.accessToken, 'GET', `/r/${encodeURIComponent(sr)}/about?raw_json=1`), ctx.clock.now());
    },

    /**
     * The subreddit's post requirements and link flairs, extras a subreddit may hide from us:
     * a refusal answers `{}` and no flairs.
     */
    async subredditRules(ctx: Ctx, c: RedditCredentials, sr: string) {
      const optional = async <T>(path: string, fallback: T): Promise<T> => {
        const res = await api(ctx, c.accessToken, 'GET', path);
        const err = redditError(res, ctx.clock.now());
        if (err?.kind === 'rejected') return fallback;
        if (err) throw err;
        return (res.body ?? fallback) as T;
      };
      const requirements = await optional<{ is_flair_required?: boolean }>(`/api/v1/${encodeURIComponent(sr)}/post_requirements`, {});
      const flairs = await optional<{ id: string; text: string }[]>(`/r/${encodeURIComponent(sr)}/api/link_flair_v2?raw_json=1`, []);
      return { requirements, flairs };
    },
  };
}

export type RedditClient = ReturnType<typeof redditClient>;
