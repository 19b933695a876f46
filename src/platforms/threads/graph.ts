import { PlatformError, type OperationContext, type PlatformResponse } from '../platform.js';
import { threadsResult } from './errors.js';

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

export function threadsCreds(ctx: { credentials: Record<string, unknown> }): ThreadsCredentials {
  const c = ctx.credentials as Partial<ThreadsCredentials>;
  if (!c.accessToken || !c.userId) throw new PlatformError('reconnect_required', 'Stored Threads credentials are incomplete');
  return { accessToken: c.accessToken, userId: c.userId, username: c.username ?? '', expiresAt: c.expiresAt ?? null };
}

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
