import { PlatformError, type OperationContext, type PlatformRequest, type PlatformResponse } from '../platform.js';
import { metaGraphError } from './meta-graph.js';

/**
 * The Graph API client shared by `facebook`, `instagram` (both Facebook Login) and
 * `instagram-standalone` (Instagram Login, host graph.instagram.com): versioned URLs, the access
 * token in the Authorization header (never in a URL, where logs keep it), JSON bodies, and every
 * answer classified — errors inside an HTTP 200 included — by the platform's own mapper.
 */

/** One Graph API version for every call (Meta keeps each for about two years; v23.0 is from May 2025). */
export const GRAPH_VERSION = 'v23.0';

export const FACEBOOK_GRAPH = 'https://graph.facebook.com';
/** Resumable video uploads (`upload_phase=start|transfer|finish` on `/{page-id}/videos`). */
export const FACEBOOK_GRAPH_VIDEO = 'https://graph-video.facebook.com';
/** Byte uploads for reels and video stories (`/video-upload/{version}/{video-id}`). */
export const FACEBOOK_RUPLOAD = 'https://rupload.facebook.com';
export const FACEBOOK_WWW = 'https://www.facebook.com';
export const INSTAGRAM_GRAPH = 'https://graph.instagram.com';
export const INSTAGRAM_API = 'https://api.instagram.com';
export const INSTAGRAM_WWW = 'https://www.instagram.com';

/** Turns a Graph answer into the platform's error (undefined for a success). */
export type GraphErrorMapper = (res: PlatformResponse, now: number) => PlatformError | undefined;

export type Query = Record<string, string | number | boolean | undefined>;

export interface GraphClient {
  /** `GET {origin}/{version}/{path}?{query}` */
  get<T>(path: string, query?: Query): Promise<T>;
  /** `POST` with a JSON body (Graph reads JSON bodies like form fields; arrays and objects stay structured). */
  post<T>(path: string, body?: Record<string, unknown>, query?: Query): Promise<T>;
  /** `POST` of a multipart form (photo and video chunk uploads); a Blob in it streams from disk. */
  multipart<T>(path: string, form: FormData, opts?: { origin?: string; timeoutMs?: number }): Promise<T>;
  /** Any other request to a Meta host, with the token and the classification (rupload byte uploads). */
  send<T>(req: PlatformRequest): Promise<T>;
}

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

export function graphUrl(origin: string, path: string, query: Query = {}): string {
  const url = new URL(`${origin}/${GRAPH_VERSION}/${path.replace(/^\//, '')}`);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

/** A client bound to one host and one access token. */
export function graphClient(ctx: Ctx, opts: { origin: string; token: string; classify?: GraphErrorMapper }): GraphClient {
  const classify = opts.classify ?? metaGraphError;
  const auth = { authorization: `Bearer ${opts.token}` };
  async function send<T>(req: PlatformRequest): Promise<T> {
    const res = await ctx.http.request({ ...req, headers: { ...auth, ...req.headers } });
    const err = classify(res, ctx.clock.now());
    if (err) throw err;
    return res.body as T;
  }
  return {
    get: <T>(path: string, query?: Query) => send<T>({ method: 'GET', url: graphUrl(opts.origin, path, query) }),
    post: <T>(path: string, body: Record<string, unknown> = {}, query?: Query) =>
      send<T>({ method: 'POST', url: graphUrl(opts.origin, path, query), headers: { 'content-type': 'application/json' }, body }),
    multipart: <T>(path: string, form: FormData, o: { origin?: string; timeoutMs?: number } = {}) =>
      send<T>({ method: 'POST', url: graphUrl(o.origin ?? opts.origin, path), body: form, timeoutMs: o.timeoutMs ?? 300_000 }),
    send,
  };
}

/** Every page of a Graph list (`{ data, paging: { next } }`), up to `max` items. */
export async function graphList<T>(client: GraphClient, path: string, query: Query, max = 500): Promise<T[]> {
  const out: T[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await client.get<{ data?: T[]; paging?: { cursors?: { after?: string }; next?: string } }>(path, { ...query, ...(after ? { after } : {}) });
    out.push(...(page.data ?? []));
    after = page.paging?.cursors?.after;
    if (!page.paging?.next || !after || out.length >= max) return out.slice(0, max);
  }
}

/** Milliseconds of a Graph time (`2026-11-20T10:00:00+0000`); NaN when absent or unreadable. */
export const graphTime = (s: string | undefined) => (s ? Date.parse(s.replace(/\+0000$/, 'Z')) : NaN);

/**
 * The recent items of a newest-first Graph list (`{ data, paging }`, paged by `after` cursor) that
 * `keep` accepts: pages are read until an item older than `since`, `max` kept items, or `maxPages`
 * pages — so a long list (comments on a popular post) is not read to its end. An item without a
 * readable time counts as recent (it might be the one looked for).
 */
export async function graphRecent<T>(
  client: GraphClient,
  path: string,
  query: Query,
  opts: { since: number; at: (item: T) => number; keep: (item: T) => boolean; max: number; maxPages: number },
): Promise<T[]> {
  const out: T[] = [];
  let after: string | undefined;
  for (let read = 0; read < opts.maxPages; read++) {
    const page = await client.get<{ data?: T[]; paging?: { cursors?: { after?: string }; next?: string } }>(path, { ...query, ...(after ? { after } : {}) });
    for (const item of page.data ?? []) {
      if (opts.at(item) < opts.since) return out;
      if (!opts.keep(item)) continue;
      out.push(item);
      if (out.length >= opts.max) return out;
    }
    after = page.paging?.cursors?.after;
    if (!page.paging?.next || !after) return out;
  }
  return out;
}

/** Reads a JSON publish token written by one of the Meta adapters; `rejected` when it is not one. */
export function parseToken<T extends { v: number; kind: string }>(token: string, kinds: readonly string[], platform: string): T {
  try {
    const t = JSON.parse(token) as T;
    if (t && t.v === 1 && kinds.includes(t.kind)) return t;
  } catch {
    // fall through
  }
  throw new PlatformError('rejected', `Unreadable ${platform} publish token`);
}

/** Unix seconds (Graph's `since`/`until`). */
export const unixSeconds = (ms: number) => Math.floor(ms / 1000);
