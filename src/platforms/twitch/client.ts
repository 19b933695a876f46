import type { OAuthApp } from '../common/oauth2.js';
import type { OperationContext } from '../platform.js';
import { twitchOk } from './errors.js';

/** The Twitch Helix API as the adapter uses it: `Authorization: Bearer` and `Client-Id` on every call, answers read by `twitchOk`. */

export const TWITCH_API = 'https://api.twitch.tv';
export const TWITCH_WWW = 'https://twitch.tv';
export const channelUrl = (login: string) => `${TWITCH_WWW}/${encodeURIComponent(login)}`;

export interface HelixUser {
  id: string;
  login: string;
  display_name?: string;
  profile_image_url?: string;
}

/** Helix bound to the app and one access token: `get` a path's body, `post` a JSON body. */
export function helix(ctx: Pick<OperationContext, 'http' | 'clock'>, app: OAuthApp, accessToken: string) {
  const headers = { authorization: `Bearer ${accessToken}`, 'client-id': app.clientId, accept: 'application/json' };
  return {
    async get<T>(path: string): Promise<T> {
      return twitchOk(await ctx.http.request({ method: 'GET', url: `${TWITCH_API}${path}`, headers }), ctx.clock.now()).body as T;
    },
    async post(path: string, body: unknown) {
      return twitchOk(await ctx.http.request({ method: 'POST', url: `${TWITCH_API}${path}`, headers: { ...headers, 'content-type': 'application/json' }, body }), ctx.clock.now());
    },
  };
}

