import type { OperationContext } from '../platform.js';
import { kickOk, sentMessageId } from './errors.js';

/** The Kick public API as the adapter uses it: bearer-token calls, answers read by `kickOk`. */

export const KICK_API = 'https://api.kick.com';
export const KICK_WWW = 'https://kick.com';
export const channelUrl = (slug: string) => `${KICK_WWW}/${encodeURIComponent(slug)}`;

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

export async function apiGet<T>(ctx: Ctx, accessToken: string, path: string): Promise<T> {
  const res = await ctx.http.request({ method: 'GET', url: `${KICK_API}${path}`, headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } });
  return kickOk(res, ctx.clock.now()).body as T;
}

export interface KickUser {
  user_id?: number | string;
  name?: string;
  email?: string;
  profile_picture?: string | null;
}

export interface KickChannel {
  broadcaster_user_id?: number | string;
  slug?: string;
}

/** `POST /public/v1/chat`: sends one chat message; the new message's id. */
export async function sendChat(ctx: Ctx, accessToken: string, body: Record<string, unknown>): Promise<string> {
  const res = await ctx.http.request({
    method: 'POST',
    url: `${KICK_API}/public/v1/chat`,
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', 'content-type': 'application/json' },
    body,
  });
  return sentMessageId(kickOk(res, ctx.clock.now()).body);
}
