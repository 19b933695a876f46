/**
 * The Instagram Login client: the token requests of Instagram Login (the code exchange at
 * api.instagram.com, the long-lived token and its renewal at graph.instagram.com) and the account
 * it names. Publishing, listing and insights are shared with `instagram`:
 * `common/instagram-publishing.ts`.
 */
import { graphClient, INSTAGRAM_GRAPH } from '../common/meta-client.js';
import type { OAuthApp } from '../common/oauth2.js';
import type { OperationContext, PlatformResponse } from '../platform.js';
import { instagramError } from './errors.js';

export * from '../common/instagram-publishing.js';

type ConnectCtx = Omit<OperationContext, 'credentials'>;

/** `POST` the authorisation code to the token URL (api.instagram.com): the raw answer. */
export function exchangeCode(ctx: ConnectCtx, tokenUrl: string, app: OAuthApp, input: { code: string; redirectUri: string }): Promise<PlatformResponse> {
  const form = new URLSearchParams({ client_id: app.clientId, client_secret: app.clientSecret, grant_type: 'authorization_code', redirect_uri: input.redirectUri, code: input.code });
  return ctx.http.request({ method: 'POST', url: tokenUrl, headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: form.toString() });
}

/** The one-hour token exchanged for a 60-day one (`ig_exchange_token`): the raw answer. */
export function exchangeForLongLived(ctx: ConnectCtx, app: OAuthApp, shortToken: string): Promise<PlatformResponse> {
  return ctx.http.request({
    method: 'GET',
    url: `${INSTAGRAM_GRAPH}/access_token?${new URLSearchParams({ grant_type: 'ig_exchange_token', client_secret: app.clientSecret, access_token: shortToken }).toString()}`,
  });
}

/** A long-lived token renewed (`ig_refresh_token`): the raw answer. */
export function renewLongLived(ctx: ConnectCtx, accessToken: string): Promise<PlatformResponse> {
  return ctx.http.request({
    method: 'GET',
    url: `${INSTAGRAM_GRAPH}/refresh_access_token?${new URLSearchParams({ grant_type: 'ig_refresh_token', access_token: accessToken }).toString()}`,
  });
}

/** The account a token belongs to. */
export function instagramMe(ctx: ConnectCtx, accessToken: string) {
  return graphClient(ctx, { origin: INSTAGRAM_GRAPH, token: accessToken, classify: instagramError }).get<{ user_id?: string | number; id?: string; username?: string; name?: string; profile_picture_url?: string }>('me', {
    fields: 'user_id,username,name,profile_picture_url',
  });
}
