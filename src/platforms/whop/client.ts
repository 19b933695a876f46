import { Readable } from 'node:stream';
import { PlatformError, type OperationContext, type PublishItem } from '../platform.js';
import { whopError } from './errors.js';

/** Whop's API client: the OAuth token and userinfo requests, files, forum posts, companies and forums, and the shapes of their answers. */

export const WHOP_API = 'https://api.whop.com/api/v1';
export const WHOP_OAUTH = 'https://api.whop.com/oauth';
export const WHOP_WEB = 'https://whop.com';
/** Whop's token answer may leave out `expires_in` (the reference implementation assumes an hour). */
const DEFAULT_EXPIRES_IN = 3600;

export interface WhopCredentials {
  accessToken: string;
  refreshToken: string | null;
  /** the Whop user (`sub`) whose posts these are */
  userId: string;
}

export interface WhopFile {
  id: string;
  upload_status?: string;
  upload_url?: string;
  upload_headers?: Record<string, string> | null;
}

export interface ForumPost {
  id: string;
  content?: string | null;
  parent_id?: string | null;
  user?: { id?: string } | null;
  created_at?: string | number | null;
}

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

async function api<T>(ctx: Ctx, token: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await ctx.http.request({
    method,
    url: `${WHOP_API}${path}`,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body } : {}),
  });
  const err = whopError(res, ctx.clock.now());
  if (err) throw err;
  return res.body as T;
}

/** Whop's token endpoint takes JSON (not a form), with PKCE; the app's secret is sent too. */
export async function tokenCall(ctx: Ctx, params: Record<string, string>): Promise<{ credentials: Omit<WhopCredentials, 'userId'>; expiresAt: Date }> {
  const res = await ctx.http.request({ method: 'POST', url: `${WHOP_OAUTH}/token`, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: params });
  const err = whopError(res, ctx.clock.now());
  if (err) throw err;
  const b = (res.body ?? {}) as { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown };
  if (typeof b.access_token !== 'string' || b.access_token === '') throw new PlatformError('rejected', 'Whop returned no access token');
  const expiresIn = Number(b.expires_in);
  return {
    credentials: { accessToken: b.access_token, refreshToken: typeof b.refresh_token === 'string' ? b.refresh_token : (params.refresh_token ?? null) },
    expiresAt: new Date(ctx.clock.now() + (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_EXPIRES_IN) * 1000),
  };
}

export const postUrl = (experience: string, id: string) => `${WHOP_WEB}/experiences/${encodeURIComponent(experience)}/${encodeURIComponent(id)}`;

/** Creates each file, PUTs its bytes where Whop says; returns the file ids. */
export async function uploadFiles(ctx: OperationContext, token: string, media: PublishItem['media']): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, m] of media.entries()) {
    const ext = m.mimeType.split('/')[1]?.replace('jpeg', 'jpg').replace(/[^a-z0-9]/gi, '') || 'bin';
    const file = await api<WhopFile>(ctx, token, 'POST', '/files', { filename: `${m.type}-${i + 1}.${ext}` });
    if (!file?.id || !file.upload_url) throw new PlatformError('transient', 'Whop created the file without an upload address');
    const blob = await ctx.openMedia(m);
    const res = await ctx.http.request({
      method: 'PUT',
      url: file.upload_url,
      headers: { ...(file.upload_headers ?? {}), 'content-length': String(blob.size), ...(file.upload_headers?.['Content-Type'] || file.upload_headers?.['content-type'] ? {} : { 'content-type': m.mimeType }) },
      body: Readable.fromWeb(blob.stream()),
      timeoutMs: 300_000,
    });
    if (res.status >= 400) {
      const err = whopError(res, ctx.clock.now());
      // The upload address is pre-signed: an expired signature is a refusal of this upload, not of the grant.
      throw err && err.kind !== 'reconnect_required' && err.kind !== 'auth_expired' ? err : new PlatformError('transient', `Whop's file storage refused the upload (HTTP ${res.status})`, { status: res.status });
    }
    ids.push(file.id);
  }
  return ids;
}

/** `GET /oauth/userinfo`: the token's user (OIDC). */
export async function userinfo(ctx: Ctx, accessToken: string) {
  const res = await ctx.http.request({ method: 'GET', url: `${WHOP_OAUTH}/userinfo`, headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } });
  const err = whopError(res, ctx.clock.now());
  if (err) throw err;
  return (res.body ?? {}) as { sub?: string; name?: string | null; preferred_username?: string | null; picture?: string | null };
}

/** `GET /files/{id}`: the file and its `upload_status`. */
export const fileOf = (ctx: Ctx, token: string, id: string) => api<WhopFile>(ctx, token, 'GET', `/files/${encodeURIComponent(id)}`);

/** `POST /forum_posts`: the post or comment created. */
export const createForumPost = (ctx: Ctx, token: string, body: unknown) => api<{ id?: string }>(ctx, token, 'POST', '/forum_posts', body);

/** `GET /forum_posts?…`: forum posts of an experience (or comments under a parent). */
export const forumPosts = (ctx: Ctx, token: string, q: URLSearchParams) => api<{ data?: ForumPost[] }>(ctx, token, 'GET', `/forum_posts?${q.toString()}`);

/** `GET /companies?first=50`. */
export const companies = (ctx: Ctx, token: string) => api<{ data?: { id: string; title?: string; name?: string }[] }>(ctx, token, 'GET', '/companies?first=50');

/** `GET /forums?company_id=&first=50`: the company's forums with their experiences. */
export const forumsOf = (ctx: Ctx, token: string, company: string) =>
  api<{ data?: { id: string; experience?: { id: string; name?: string | null } | null }[] }>(ctx, token, 'GET', `/forums?${new URLSearchParams({ company_id: company, first: '50' }).toString()}`);
