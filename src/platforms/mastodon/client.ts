import { mediaFileName } from '../common/media.js';
import { PlatformError, type OperationContext, type PlatformRequest, type PlatformResponse, type PublishItem, type PublishResult } from '../platform.js';
import { mastodonResult } from './errors.js';
import type { MastodonSettings } from './metadata.js';

/**
 * Mastodon's API client: requests to the instance the user typed (each passes the SSRF guard), the
 * app registration, accounts, media and statuses, and the shapes of their answers.
 */

/** `read` for findRecent and analytics, `write` for statuses and media (also fine on Mastodon < 4.3). */
export const SCOPES = 'read write';
const APP_NAME = 'Tidings';
/** Mastodon refuses media descriptions (alt text) longer than this. */
const ALT_LIMIT = 1500;

/** What `beginConnect` hands back for the service to keep per instance. */
export interface InstanceApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  scopes: string;
}

export interface MastodonCredentials {
  accessToken: string;
  instanceUrl: string;
  accountId: string;
  username: string;
}

export interface Account {
  id: string;
  username: string;
  acct: string;
  display_name?: string;
  avatar?: string;
  followers_count?: number;
  following_count?: number;
  statuses_count?: number;
}

export interface Status {
  id: string;
  uri: string;
  url: string | null;
  created_at: string;
  content: string;
  reblog?: unknown;
  favourites_count?: number;
  reblogs_count?: number;
  replies_count?: number;
}

export interface MediaAttachment {
  id: string;
  url: string | null;
}

export interface StatusBody {
  status: string;
  media_ids: string[];
  in_reply_to_id?: string;
  visibility?: MastodonSettings['visibility'];
  /** the content warning; absent when there is none */
  spoiler_text?: string;
}

/** One request to the instance, with the token as `Authorization: Bearer` when there is one. */
export function call(
  ctx: Pick<OperationContext, 'http'>,
  instance: string,
  token: string | null,
  method: PlatformRequest['method'],
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<PlatformResponse> {
  return ctx.http.request({
    method,
    url: `${instance}${path}`,
    headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body,
    // The instance is whatever the user typed: the SSRF guard must apply to every request.
    untrustedHost: true,
  });
}

export async function verifyCredentials(ctx: Pick<OperationContext, 'http' | 'clock'>, instance: string, token: string): Promise<Account> {
  const account = mastodonResult<Account>(await call(ctx, instance, token, 'GET', '/api/v1/accounts/verify_credentials'), ctx.clock.now());
  if (typeof account?.id !== 'string' || typeof account.username !== 'string') {
    throw new PlatformError('rejected', `${instance} did not answer like a Mastodon server (no account in verify_credentials)`);
  }
  return account;
}

export async function registerApp(ctx: Pick<OperationContext, 'http' | 'clock'>, instance: string, redirectUri: string): Promise<InstanceApp> {
  const res = await call(ctx, instance, null, 'POST', '/api/v1/apps', {
    client_name: APP_NAME,
    redirect_uris: redirectUri,
    scopes: SCOPES,
    website: new URL(redirectUri).origin,
  });
  if (res.status === 404 || res.status === 405) {
    throw new PlatformError('rejected', `${instance} does not look like a Mastodon server (no /api/v1/apps)`, { status: res.status });
  }
  const body = mastodonResult<{ client_id?: unknown; client_secret?: unknown }>(res, ctx.clock.now());
  if (typeof body?.client_id !== 'string' || typeof body.client_secret !== 'string') {
    throw new PlatformError('rejected', `${instance} did not register the app like a Mastodon server does`);
  }
  return { clientId: body.client_id, clientSecret: body.client_secret, redirectUri, scopes: SCOPES };
}

/**
 * Whether the instance still knows the app (`app`'s client id and secret): an admin may have
 * deleted it, or the instance been rebuilt. Asks for an app-level token (client_credentials); only
 * `invalid_client` means gone — any other failure is taken as "still there", so a slow or failing
 * instance does not make us register a new app on every connect.
 */
export async function appStillRegistered(ctx: Pick<OperationContext, 'http'>, instance: string, app: InstanceApp): Promise<boolean> {
  const res = await call(ctx, instance, null, 'POST', '/oauth/token', { grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret, scope: 'read' });
  if (res.status !== 400 && res.status !== 401) return true;
  const error = (res.body as { error?: unknown } | null)?.error;
  return error !== 'invalid_client';
}

/** true when the attachment is processed; false while Mastodon answers 206 (or 200 without a URL yet). */
export async function mediaReady(ctx: OperationContext, c: MastodonCredentials, id: string): Promise<boolean> {
  const res = await call(ctx, c.instanceUrl, c.accessToken, 'GET', `/api/v1/media/${encodeURIComponent(id)}`);
  const media = mastodonResult<MediaAttachment>(res, ctx.clock.now());
  return res.status === 200 && typeof media?.url === 'string';
}

export async function uploadMedia(ctx: OperationContext, c: MastodonCredentials, m: PublishItem['media'][number]): Promise<{ id: string; ready: boolean }> {
  const form = new FormData();
  form.set('file', await ctx.openMedia(m), mediaFileName(m));
  if (m.alt) form.set('description', m.alt.slice(0, ALT_LIMIT));
  const res = await call(ctx, c.instanceUrl, c.accessToken, 'POST', '/api/v2/media', form);
  const media = mastodonResult<MediaAttachment>(res, ctx.clock.now());
  if (typeof media?.id !== 'string') throw new PlatformError('transient', 'Mastodon accepted the media without giving its id');
  // 200: processed at once (small images); 202: still processing, `url` is null until it is done.
  return { id: media.id, ready: res.status === 200 && typeof media.url === 'string' };
}

export async function postStatus(ctx: OperationContext, c: MastodonCredentials, body: StatusBody, idempotencyKey: string): Promise<PublishResult> {
  const res = await call(ctx, c.instanceUrl, c.accessToken, 'POST', '/api/v1/statuses', body, { 'idempotency-key': idempotencyKey });
  const status = mastodonResult<Status>(res, ctx.clock.now());
  if (typeof status?.id !== 'string') throw new PlatformError('transient', 'Mastodon accepted the status without giving its id', { outcomeUnknown: true });
  return { status: 'published', id: status.id, url: status.url ?? status.uri };
}

