import { z } from 'zod';
import { readCredentials, StoredOAuthTokens, storedText, storedTextOrNull } from '../common/credentials.js';
import { randomBytes } from 'node:crypto';
import { errorFromResponse, extractMessage } from '../http-errors.js';
import { PlatformError, type Credentials, type OperationContext, type PlatformResponse } from '../platform.js';
import { vkError } from './errors.js';

/** The VK API and VK ID as the adapter uses them. */

export const VK_API = 'https://api.vk.com';
export const VK_ID = 'https://id.vk.com';
export const VK_WWW = 'https://vk.com';
/** The API version every call names (`v` is required). */
export const VK_API_VERSION = '5.199';

/** What a connected VK channel stores (sealed by the caller). */
export interface VkCredentials {
  accessToken: string;
  refreshToken: string | null;
  /** ISO time the access token expires (1 hour after issue) */
  expiresAt: string | null;
  /** VK ID's `device_id` from the authorisation redirect; refreshing needs it (null when the callback did not carry it) */
  deviceId: string | null;
  userId: string;
}

const StoredVkCredentials = StoredOAuthTokens.extend({
  deviceId: storedTextOrNull,
  // older channels stored VK's numeric id as a number
  userId: z.union([storedText, z.number().refine((n) => n !== 0)]).transform(String),
});
export const vkCreds = (ctx: { credentials: Credentials }): VkCredentials => readCredentials(ctx, StoredVkCredentials, 'VK');

type Params = Record<string, string | number | undefined>;

/** The VK API bound to one access token: `POST /method/<name>?v=…` with the parameters and the token in the form body. */
export interface VkApi {
  call<T>(method: string, params?: Params, timeoutMs?: number): Promise<T>;
}

function form(params: Params): string {
  const f = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) f.set(k, String(v));
  return f.toString();
}

export function vkApi(ctx: Pick<OperationContext, 'http' | 'clock'>, c: Pick<VkCredentials, 'accessToken' | 'refreshToken'>): VkApi {
  return {
    async call<T>(method: string, params: Params = {}, timeoutMs?: number) {
      const res = await ctx.http.request({
        method: 'POST',
        url: `${VK_API}/method/${method}?v=${VK_API_VERSION}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        // The token goes in the body, never in the URL (URLs end up in logs).
        body: form({ ...params, access_token: c.accessToken }),
        ...(timeoutMs ? { timeoutMs } : {}),
      });
      const err = vkError(res, { canRefresh: c.refreshToken !== null, now: ctx.clock.now() });
      if (err) throw err;
      return (res.body as { response: T }).response;
    },
  };
}

/** VK's upload hosts answer JSON, sometimes labelled as text/html: parse it either way. */
export function jsonOf(res: PlatformResponse): PlatformResponse {
  if (typeof res.body !== 'string') return res;
  try {
    return { ...res, body: JSON.parse(res.body) as unknown };
  } catch {
    return res;
  }
}

/** A random `state` for VK ID's token endpoint (VK wants one of at least 32 characters and echoes it). */
export const tokenState = () => randomBytes(24).toString('base64url');

export interface VkTokenAnswer {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  expires_in?: number;
  user_id?: number | string;
  scope?: string;
}

/**
 * `POST https://id.vk.com/oauth2/auth` with `grant_type=refresh_token`. VK ID refresh tokens are
 * single use (each refresh returns a new one) and bound to the `device_id` the authorisation gave.
 * `common/oauth2.ts#refreshTokens` cannot send `device_id`, hence this call of VK's own.
 */
export async function refreshVkToken(
  ctx: Pick<OperationContext, 'http'>,
  input: { clientId: string; refreshToken: string; deviceId: string | null },
): Promise<VkTokenAnswer> {
  const res = await ctx.http.request({
    method: 'POST',
    url: `${VK_ID}/oauth2/auth`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: form({ grant_type: 'refresh_token', refresh_token: input.refreshToken, client_id: input.clientId, device_id: input.deviceId ?? undefined, state: tokenState() }),
  });
  const b = (res.body && typeof res.body === 'object' ? res.body : {}) as Record<string, unknown>;
  if (typeof b.error === 'string') {
    const message = `${b.error}${typeof b.error_description === 'string' ? `: ${b.error_description}` : ''}`;
    if (res.status >= 500 || b.error === 'server_error' || b.error === 'temporarily_unavailable') return Promise.reject(new PlatformError('transient', message, { status: res.status, platformCode: b.error }));
    if (b.error === 'slow_down') return Promise.reject(new PlatformError('rate_limited', message, { status: res.status, platformCode: b.error, retryAfterSeconds: 5 }));
    // invalid_grant (used, expired or revoked refresh token), invalid_client, invalid_request (device mismatch): only a new authorisation helps.
    throw new PlatformError('reconnect_required', `VK refused to renew the token: ${message}`, { status: res.status, platformCode: b.error });
  }
  const http = errorFromResponse(res);
  if (http) throw http.kind === 'auth_expired' || http.kind === 'rejected' ? new PlatformError('reconnect_required', http.message, http.details) : http;
  if (typeof b.access_token !== 'string' || b.access_token === '') throw new PlatformError('transient', `VK renewed no token: ${extractMessage(b) ?? 'empty answer'}`);
  return b as unknown as VkTokenAnswer;
}

/** `POST https://id.vk.com/oauth2/user_info`: the profile of the token's user. */
export async function vkUserInfo(ctx: Pick<OperationContext, 'http'>, input: { clientId: string; accessToken: string }) {
  const res = await ctx.http.request({
    method: 'POST',
    url: `${VK_ID}/oauth2/user_info`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: form({ client_id: input.clientId, access_token: input.accessToken }),
  });
  const b = (res.body && typeof res.body === 'object' ? res.body : {}) as { error?: string; error_description?: string; user?: Record<string, unknown> };
  if (typeof b.error === 'string') throw new PlatformError('rejected', `VK did not give the profile: ${b.error}${b.error_description ? `: ${b.error_description}` : ''}`, { platformCode: b.error });
  const http = errorFromResponse(res);
  if (http) throw http;
  if (!b.user || b.user.user_id === undefined) throw new PlatformError('rejected', 'VK gave no profile for this account');
  return b.user as { user_id: string | number; first_name?: string; last_name?: string; avatar?: string; email?: string };
}

// ---------------------------------------------------------------------------------------------
// Ids

/** Where a post goes: a wall (`owner_id`: the user, or minus the community) and whether it is posted as the community. */
export interface VkTarget {
  ownerId: string;
  /** the community's id (positive), when posting to a community's wall */
  groupId?: string;
  fromGroup: boolean;
}

export function targetOf(settings: Record<string, unknown> | undefined, userId: string): VkTarget {
  const community = typeof settings?.community === 'string' ? settings.community.trim() : typeof settings?.community === 'number' ? String(settings.community) : '';
  if (community === '') return { ownerId: userId, fromGroup: false };
  if (!/^\d{1,12}$/.test(community)) throw new PlatformError('rejected', `"${community}" is not a VK community id (settings.community): choose one with the communities tool`);
  return { ownerId: `-${community}`, groupId: community, fromGroup: settings?.from_group !== false };
}

/** The author id VK shows on what the target posts (`from_id`): the user, or minus the community when posting as it. */
export const authorOf = (t: VkTarget, userId: string) => (t.fromGroup && t.groupId ? `-${t.groupId}` : userId);

/** A published item's id: `{owner}_{post}` for a wall post, `{owner}_{post}_{comment}` for a comment. */
export interface VkItemId {
  ownerId: string;
  postId: string;
  commentId?: string;
}

export function parseItemId(id: string): VkItemId {
  const m = /^(-?\d+)_(\d+)(?:_(\d+))?$/.exec(id);
  if (!m) throw new PlatformError('rejected', `"${id}" is not a VK post id ({owner}_{post})`);
  return { ownerId: m[1]!, postId: m[2]!, ...(m[3] ? { commentId: m[3] } : {}) };
}

export const postUrl = (ownerId: string | number, postId: string | number) => `${VK_WWW}/wall${ownerId}_${postId}`;
export const commentUrl = (ownerId: string | number, postId: string | number, commentId: string | number, thread?: string | number) =>
  `${postUrl(ownerId, postId)}?reply=${commentId}${thread ? `&thread=${thread}` : ''}`;
