import type { OperationContext } from '../platform.js';
import { devtoError, devtoOk } from './errors.js';

/** DEV's (Forem API v1) client: the requests the adapter makes and the shapes of their answers. */

export const DEVTO_API = 'https://dev.to/api';
/** Forem API v1 is chosen by this Accept header (without it DEV answers the deprecated v0). */
const ACCEPT = 'application/vnd.forem.api-v1+json';
/** Articles read per page of `/articles/me/all` (DEV allows up to 1000). */
const PAGE_SIZE = 100;
const MAX_PAGES = 10;

type Http = Pick<OperationContext, 'http'>;

/** DEV's article as `/articles` and `/articles/me/*` answer it (the fields used here). */
export interface DevtoArticle {
  id: number;
  title: string;
  url: string;
  slug?: string;
  published?: boolean;
  published_at?: string | null;
  created_at?: string;
  body_markdown?: string;
  page_views_count?: number;
  public_reactions_count?: number;
  comments_count?: number;
  organization?: { username?: string; name?: string } | null;
}

export interface DevtoUser {
  id: number;
  username: string;
  name?: string | null;
  profile_image?: string | null;
}

function headers(apiKey: string): Record<string, string> {
  return { 'api-key': apiKey, accept: ACCEPT };
}

/** `GET {DEVTO_API}{path}`: the body, or the classified error. */
export async function get<T>(ctx: Http, apiKey: string, path: string): Promise<T> {
  return devtoOk<T>(await ctx.http.request({ method: 'GET', url: `${DEVTO_API}${path}`, headers: headers(apiKey) }));
}

/** `POST /articles`: the created article as DEV answers it (not checked further here), or the classified error. */
export async function createArticle(ctx: Http, apiKey: string, article: Record<string, unknown>): Promise<DevtoArticle> {
  const res = await ctx.http.request({ method: 'POST', url: `${DEVTO_API}/articles`, headers: { ...headers(apiKey), 'content-type': 'application/json' }, body: { article } });
  const err = devtoError(res);
  if (err) throw err;
  return res.body as DevtoArticle;
}

/** The account's articles, newest first, page by page (published ones first, as DEV lists them). */
export async function* myArticles(ctx: Http, apiKey: string, perPage = PAGE_SIZE): AsyncGenerator<DevtoArticle> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const list = await get<DevtoArticle[]>(ctx, apiKey, `/articles/me/all?page=${page}&per_page=${perPage}`);
    if (!Array.isArray(list)) return;
    for (const a of list) yield a;
    if (list.length < perPage) return;
  }
}
