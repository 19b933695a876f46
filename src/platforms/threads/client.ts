import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import { PlatformError, type Credentials, type OperationContext, type PlatformResponse, type PublishItem, type PublishMedia, type PublishResult } from '../platform.js';
import { containerError, isMediaNotFound, threadsError, threadsResult } from './errors.js';

/**
 * The Threads client: the Graph API bound to a token (`threadsGraph`), the long-lived token
 * endpoints, and publishing as containers (below).
 */

/** The Threads Graph API (also reachable as graph.threads.com; the .net host is the documented one). */
export const THREADS_GRAPH = 'https://graph.threads.net';
export const THREADS_API_VERSION = 'v1.0';
/** Where posts and profiles are shown. */
export const THREADS_WEB = 'https://www.threads.net';

/** What a connected Threads channel stores (sealed by the caller). */
export interface ThreadsCredentials {
  /** the long-lived (60-day) user token */
  accessToken: string;
  /** the Threads user id (`/me`'s `id`) */
  userId: string;
  username: string;
  /** ISO time the token stops working (renewed with th_refresh_token before then) */
  expiresAt: string | null;
}

/** What a Threads channel stores, read with the fallbacks older channels need. */
const ThreadsCredentialsSchema = z
  .object({ accessToken: z.string().min(1), userId: z.string().min(1), username: z.string().nullish(), expiresAt: z.string().nullish() })
  .transform((c): ThreadsCredentials => ({ accessToken: c.accessToken, userId: c.userId, username: c.username ?? '', expiresAt: c.expiresAt ?? null }));

export const threadsCreds = (ctx: { credentials: Credentials }): ThreadsCredentials => readCredentials(ctx, ThreadsCredentialsSchema, 'Threads');

export const profileUrl = (username: string) => `${THREADS_WEB}/@${username}`;

/** The Graph API bound to one token. Form-encoded writes (long texts do not fit a query string); the token goes in the Authorization header, never in URLs. */
export interface ThreadsGraph {
  get<T>(path: string, query?: Record<string, string | undefined>): Promise<T>;
  /** The answer, and the platform's own time of it (its `Date` header; our clock when absent). */
  post<T>(path: string, form: Record<string, string | undefined>): Promise<{ body: T; at: number }>;
}

function query(q: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, v);
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** The platform's time of an answer, from its Date header. */
export function answeredAt(res: PlatformResponse, fallback: number): number {
  const t = Date.parse(res.headers.date ?? '');
  return Number.isNaN(t) ? fallback : t;
}

export function threadsGraph(ctx: Pick<OperationContext, 'http' | 'clock'>, accessToken: string): ThreadsGraph {
  const headers = { authorization: `Bearer ${accessToken}` };
  const url = (path: string) => `${THREADS_GRAPH}/${THREADS_API_VERSION}${path}`;
  return {
    async get<T>(path: string, q: Record<string, string | undefined> = {}) {
      const res = await ctx.http.request({ method: 'GET', url: `${url(path)}${query(q)}`, headers });
      return threadsResult<T>(res, ctx.clock.now());
    },
    async post<T>(path: string, form: Record<string, string | undefined>) {
      const res = await ctx.http.request({
        method: 'POST',
        url: url(path),
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: query(form).slice(1),
      });
      return { body: threadsResult<T>(res, ctx.clock.now()), at: answeredAt(res, ctx.clock.now()) };
    },
  };
}

export interface TokenAnswer {
  access_token?: string;
  token_type?: string;
  expires_in?: number;
}

/** Long-lived token endpoints (`/access_token`, `/refresh_access_token`): unversioned GETs on the Graph host. */
export async function tokenCall(ctx: Pick<OperationContext, 'http' | 'clock'>, path: string, params: Record<string, string>): Promise<TokenAnswer> {
  const res = await ctx.http.request({ method: 'GET', url: `${THREADS_GRAPH}${path}?${new URLSearchParams(params).toString()}` });
  const err = threadsError(res, ctx.clock.now());
  if (err) throw err;
  const body = res.body as TokenAnswer;
  if (!body?.access_token) throw new PlatformError('transient', 'Threads answered without an access token');
  return body;
}

/**
 * Publishing on Threads: every post is a media container (`POST /{user-id}/threads`) that Threads
 * prepares — fetching the picture or video from its public URL — and that is then published
 * (`POST /{user-id}/threads_publish?creation_id=`). A carousel is a container of 2–20 item
 * containers, made once all of them are FINISHED. Replies are containers with `reply_to_id`.
 *
 * Nothing here publishes a container twice: before `threads_publish` the container's status is
 * read, and a container already PUBLISHED (an earlier call got through but its answer was lost) is
 * looked up among the account's posts instead of being published again.
 */

type Ctx = OperationContext;

/** Threads' media types of a container, and the `media_type` the published post shows. */
type ContainerType = 'TEXT' | 'IMAGE' | 'VIDEO' | 'CAROUSEL';
const POST_TYPE: Record<ContainerType, string> = { TEXT: 'TEXT_POST', IMAGE: 'IMAGE', VIDEO: 'VIDEO', CAROUSEL: 'CAROUSEL_ALBUM' };

/** Longest `alt_text` Threads takes. */
const ALT_TEXT_MAX = 1000;
/** How far before the first container a published post is looked for (clocks and listing order differ a little). */
const LOOKBACK_MS = 10 * 60_000;
/** Pages of the account's posts read when looking for one already published. */
const MAX_PAGES = 5;

/**
 * What `checkPublish` needs to go on from wherever a publish stopped: the containers already made
 * (ids), the text and reply target they were made with, and — once `threads_publish` answered —
 * the published post's id. `since` is the platform's time of the first container.
 */
export interface PendingToken {
  v: 1;
  user: string;
  type: ContainerType;
  text: string;
  replyTo?: string;
  /** carousel item containers, in order */
  children?: string[];
  /** the container to publish (a carousel's is made once its items are FINISHED) */
  container?: string;
  /** the published post, once threads_publish answered with it */
  published?: string;
  since: number;
}

export function parseToken(token: string, c: ThreadsCredentials): PendingToken {
  let t: PendingToken | undefined;
  try {
    t = JSON.parse(token) as PendingToken;
  } catch {
    // fall through
  }
  if (!t || t.v !== 1 || typeof t.text !== 'string' || typeof t.since !== 'number' || !(t.container || t.children?.length)) {
    throw new PlatformError('rejected', 'Unreadable Threads publish token');
  }
  if (t.user !== c.userId) throw new PlatformError('rejected', 'This Threads publish token belongs to another account');
  return t;
}

interface ContainerStatus {
  id: string;
  status?: 'IN_PROGRESS' | 'FINISHED' | 'PUBLISHED' | 'ERROR' | 'EXPIRED';
  error_message?: string;
}

/** A Threads post as the listing and media endpoints show it. */
export interface ThreadsMedia {
  id: string;
  media_type?: string;
  text?: string;
  timestamp?: string;
  permalink?: string;
  shortcode?: string;
  username?: string;
  replied_to?: { id: string };
}

export const MEDIA_FIELDS = 'id,media_type,text,timestamp,permalink,shortcode,username';

/** The post's URL: its permalink (Threads omits it for posts flagged for copyright), else the profile. */
export function postUrl(m: Pick<ThreadsMedia, 'permalink' | 'shortcode' | 'username'>, username: string): string {
  if (m.permalink) return m.permalink;
  const user = m.username || username;
  return m.shortcode ? `${profileUrl(user)}/post/${m.shortcode}` : profileUrl(user);
}

function itemParams(m: PublishMedia): Record<string, string> {
  const p: Record<string, string> = m.type === 'video' ? { media_type: 'VIDEO', video_url: m.path } : { media_type: 'IMAGE', image_url: m.path };
  if (m.alt?.trim()) p.alt_text = m.alt.trim().slice(0, ALT_TEXT_MAX);
  return p;
}

const pending = (t: PendingToken): PublishResult => ({ status: 'pending', token: JSON.stringify(t) });

/** Reads one page after another of the account's posts (or replies) since `since`, newest first. */
async function* listing(g: ThreadsGraph, path: string, fields: string, since: number, pageSize: number): AsyncGenerator<ThreadsMedia[]> {
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await g.get<{ data?: ThreadsMedia[]; paging?: { cursors?: { after?: string }; next?: string } }>(path, {
      fields,
      since: String(Math.floor(since / 1000)),
      limit: String(pageSize),
      after,
    });
    const data = res.data ?? [];
    yield data;
    after = res.paging?.cursors?.after;
    if (!res.paging?.next || !after || data.length === 0) return;
  }
}

/** Threads' `2024-07-01T10:00:00+0000` as ISO 8601 ('' when absent or unreadable). */
function isoTime(timestamp: string | undefined): string {
  const t = Date.parse(timestamp ?? '');
  return Number.isNaN(t) ? '' : new Date(t).toISOString();
}

const sameText = (a: string | undefined, b: string) => (a ?? '').trim() === b.trim();

/**
 * The post an earlier `threads_publish` of this token's container made: the account's own post
 * (or reply to the same post) of the same type and text. Ours was published after its container
 * was made (`since`, the platform's time, to the second), so the oldest such post from then on is
 * it; an older one in the look-back margin counts only when there is none (clocks differ).
 */
async function findPublished(g: ThreadsGraph, c: ThreadsCredentials, t: PendingToken): Promise<ThreadsMedia | undefined> {
  const path = t.replyTo ? `/${c.userId}/replies` : `/${c.userId}/threads`;
  const fields = t.replyTo ? `${MEDIA_FIELDS},replied_to` : MEDIA_FIELDS;
  const matches: ThreadsMedia[] = [];
  for await (const page of listing(g, path, fields, t.since - LOOKBACK_MS, 50)) {
    for (const m of page) {
      if (m.media_type !== POST_TYPE[t.type] || !sameText(m.text, t.text)) continue;
      if (t.replyTo && m.replied_to?.id !== t.replyTo) continue;
      matches.push(m);
    }
  }
  // Newest first: the last one is the oldest.
  const from = Math.floor(t.since / 1000) * 1000;
  return matches.filter((m) => Date.parse(m.timestamp ?? '') >= from).at(-1) ?? matches.at(-1);
}

/**
 * The published post's URL, read back from Threads. The post exists, so this never fails it: a
 * passing failure is read again on the next check; anything else gets the profile's URL. Right
 * after `threads_publish` (`fresh`) not even an expired token is thrown: the caller would refresh
 * and run the whole publish again.
 */
async function finishPublished(g: ThreadsGraph, c: ThreadsCredentials, t: PendingToken & { published: string }, fresh: boolean): Promise<PublishResult> {
  try {
    const m = await g.get<ThreadsMedia>(`/${t.published}`, { fields: 'id,permalink,shortcode,username' });
    return { status: 'published', id: t.published, url: postUrl(m, c.username) };
  } catch (e) {
    if (e instanceof PlatformError && e.kind === 'auth_expired' && !fresh) throw e;
    if (e instanceof PlatformError && (e.kind === 'transient' || e.kind === 'rate_limited' || e.kind === 'auth_expired')) return pending(t);
    return { status: 'published', id: t.published, url: profileUrl(c.username) };
  }
}

/**
 * Takes a publish as far as it can go now: the carousel's items → the carousel container → its
 * status → `threads_publish` → the permalink. Answers `pending` with the token as far as it got.
 * Idempotent: each step looks before it acts, and a container already PUBLISHED is recognised.
 */
export async function advance(ctx: Ctx, c: ThreadsCredentials, t: PendingToken): Promise<PublishResult> {
  const g = threadsGraph(ctx, c.accessToken);
  if (t.published) return finishPublished(g, c, { ...t, published: t.published }, false);
  if (!t.container) {
    for (const child of t.children ?? []) {
      const s = await g.get<ContainerStatus>(`/${child}`, { fields: 'id,status,error_message' });
      if (s.status === 'ERROR' || s.status === 'EXPIRED') throw containerError(s.status, s.error_message);
      if (s.status !== 'FINISHED') return pending(t);
    }
    // A crash before the token keeps this id leaves an unused container (it expires in 24 h), never a post.
    const made = await g.post<{ id: string }>(`/${c.userId}/threads`, {
      media_type: 'CAROUSEL',
      children: (t.children ?? []).join(','),
      text: t.text || undefined,
      reply_to_id: t.replyTo,
    });
    return carryOn(ctx, c, { ...t, container: made.body.id });
  }
  const container = t.container;
  const s = await g.get<ContainerStatus>(`/${container}`, { fields: 'id,status,error_message' });
  if (s.status === 'ERROR' || s.status === 'EXPIRED') throw containerError(s.status, s.error_message);
  if (s.status === 'PUBLISHED') {
    const earlier = await findPublished(g, c, t);
    // Threads said it is published but does not list it yet: look again on the next check.
    return earlier ? { status: 'published', id: earlier.id, url: postUrl(earlier, c.username) } : pending(t);
  }
  if (s.status !== 'FINISHED') return pending(t);

  let id: string;
  try {
    id = (await g.post<{ id: string }>(`/${c.userId}/threads_publish`, { creation_id: container })).body.id;
  } catch (e) {
    // "Media Not Found" (Threads not quite ready), a 5xx or a lost answer: the container's status
    // says on the next check whether it was published, so it is never published twice.
    if (isMediaNotFound(e) || (e instanceof PlatformError && (e.kind === 'transient' || e.details.outcomeUnknown))) return pending(t);
    throw e;
  }
  return finishPublished(g, c, { ...t, published: id }, true);
}

/**
 * {@link advance} from a token holding a container just made: a passing failure (or an expired
 * token, refreshed before the next check) answers `pending` with that token rather than an error,
 * so that the container is not made again. Final refusals and rate limits are thrown.
 */
async function carryOn(ctx: Ctx, c: ThreadsCredentials, t: PendingToken): Promise<PublishResult> {
  try {
    return await advance(ctx, c, t);
  } catch (e) {
    if (e instanceof PlatformError && (e.kind === 'transient' || e.kind === 'auth_expired')) return pending(t);
    throw e;
  }
}

/**
 * Creates the containers of one item (the first, or a reply with `replyTo`) and takes it as far as
 * it goes at once (a text or a picture is usually published in the same call; a video answers
 * `pending`). Failures before the containers exist are thrown (nothing was made that matters:
 * at worst an unused carousel item); once they exist, a passing failure answers `pending` and the
 * token carries on.
 */
export async function publishItem(ctx: Ctx, c: ThreadsCredentials, item: PublishItem, replyTo: string | undefined): Promise<PublishResult> {
  const g = threadsGraph(ctx, c.accessToken);
  const text = htmlToText(item.content);
  const common = { text: text || undefined, reply_to_id: replyTo };
  const base = { v: 1 as const, user: c.userId, text, ...(replyTo ? { replyTo } : {}) };
  if (item.media.length === 0) {
    if (!text) throw new PlatformError('rejected', 'A Threads post needs text or media');
    const made = await g.post<{ id: string }>(`/${c.userId}/threads`, { media_type: 'TEXT', ...common });
    return carryOn(ctx, c, { ...base, type: 'TEXT', container: made.body.id, since: made.at });
  }
  if (item.media.length === 1) {
    const m = item.media[0]!;
    const made = await g.post<{ id: string }>(`/${c.userId}/threads`, { ...itemParams(m), ...common });
    return carryOn(ctx, c, { ...base, type: m.type === 'video' ? 'VIDEO' : 'IMAGE', container: made.body.id, since: made.at });
  }
  if (item.media.length > 20) throw new PlatformError('rejected', 'A Threads carousel holds at most 20 pictures and videos');
  const children: string[] = [];
  let since: number | undefined;
  for (const m of item.media) {
    const made = await g.post<{ id: string }>(`/${c.userId}/threads`, { ...itemParams(m), is_carousel_item: 'true' });
    since ??= made.at;
    children.push(made.body.id);
  }
  return carryOn(ctx, c, { ...base, type: 'CAROUSEL', children, since: since! });
}

/** The account's posts and replies since `since`, newest first. */
export async function recentPosts(ctx: Ctx, c: ThreadsCredentials, input: { since: Date; limit: number }): Promise<{ id: string; url: string; content: string; createdAt: string }[]> {
  const g = threadsGraph(ctx, c.accessToken);
  const limit = Math.max(1, input.limit);
  const pageSize = Math.min(100, limit);
  const since = input.since.getTime();
  const collect = async (path: string) => {
    const out: ThreadsMedia[] = [];
    for await (const page of listing(g, path, MEDIA_FIELDS, since, pageSize)) {
      out.push(...page);
      if (out.length >= limit) break;
    }
    return out;
  };
  const posts = await collect(`/${c.userId}/threads`);
  let replies: ThreadsMedia[] = [];
  try {
    replies = await collect(`/${c.userId}/replies`);
  } catch (e) {
    // Channels connected before threads_read_replies was asked for cannot list replies: posts still count.
    if (!(e instanceof PlatformError && e.kind === 'rejected')) throw e;
    ctx.logger.warn({ err: e.message }, 'Threads replies could not be listed');
  }
  return [...posts, ...replies]
    .filter((m) => m.media_type !== 'REPOST_FACADE')
    .map((m) => ({ id: m.id, url: postUrl(m, c.username), content: m.text ?? '', createdAt: isoTime(m.timestamp) }))
    // Threads' timestamps are to the second.
    .filter((p) => !p.createdAt || Date.parse(p.createdAt) >= Math.floor(since / 1000) * 1000)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    .slice(0, limit);
}
