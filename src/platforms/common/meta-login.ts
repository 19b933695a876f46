import { extractMessage } from '../http-errors.js';
import { PlatformError, type OperationContext, type PlatformMetadata } from '../platform.js';
import { FACEBOOK_GRAPH, graphClient, graphList, type GraphClient } from './meta-client.js';
import { metaGraphError } from './meta-graph.js';
import type { OAuthApp } from './oauth2.js';

/**
 * Facebook Login, shared by `facebook` and `instagram`: the authorisation dialog, the code
 * exchanged for a short-lived user token, that token exchanged for a 60-day one, the granted
 * permissions checked, and the Pages the user manages with their Page tokens (a Page token got
 * with a long-lived user token does not expire). No refresh token exists: a channel posts with
 * its Page token, and the user token only lists Pages (the `pages`/`accounts` tools,
 * `selectAccount`) until it expires.
 */

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

export function requireMetaApp(app: OAuthApp | undefined, displayName: string): OAuthApp {
  if (!app?.clientId || !app.clientSecret) throw new PlatformError('unsupported', `${displayName} is not configured`);
  return app;
}

/** The dialog URL: Facebook wants the scopes comma-separated and takes no PKCE. */
export function facebookAuthorizeUrl(metadata: PlatformMetadata, app: OAuthApp, input: { state: string; redirectUri: string }): string {
  const url = new URL(metadata.oauth!.authorizeUrl);
  url.searchParams.set('client_id', app.clientId);
  url.searchParams.set('redirect_uri', input.redirectUri);
  url.searchParams.set('state', input.state);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', metadata.oauth!.scopes.join(','));
  return url.toString();
}

export interface FacebookUserToken {
  token: string;
  /** ISO time the long-lived user token expires (about 60 days), null when Facebook did not say */
  expiresAt: string | null;
  userId: string;
  userName: string;
}

/** A token endpoint failure: the code was refused (used, expired, wrong redirect) — the user starts again. */
function loginError(e: unknown): never {
  if (e instanceof PlatformError && (e.kind === 'rejected' || e.kind === 'reconnect_required' || e.kind === 'auth_expired')) {
    throw new PlatformError('rejected', `Facebook refused the authorisation: ${e.message}`, e.details);
  }
  throw e;
}

/**
 * Code → short-lived user token → long-lived user token (`fb_exchange_token`), then who the user is
 * and whether every permission the app asked for was granted (a user may untick some in the dialog).
 */
export async function facebookLogin(metadata: PlatformMetadata, app: OAuthApp, input: { code: string; redirectUri: string }, ctx: Ctx): Promise<FacebookUserToken> {
  const tokenUrl = new URL(metadata.oauth!.tokenUrl);
  const exchange = async (query: Record<string, string>) => {
    const url = new URL(tokenUrl);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const res = await ctx.http.request({ method: 'GET', url: url.toString() });
    const err = metaGraphError(res, ctx.clock.now());
    if (err) loginError(err);
    const body = (res.body ?? {}) as { access_token?: string; expires_in?: number };
    if (!body.access_token) throw new PlatformError('rejected', extractMessage(res.body) ?? 'Facebook returned no access token');
    return body;
  };
  const short = await exchange({ client_id: app.clientId, client_secret: app.clientSecret, redirect_uri: input.redirectUri, code: input.code });
  const long = await exchange({ grant_type: 'fb_exchange_token', client_id: app.clientId, client_secret: app.clientSecret, fb_exchange_token: short.access_token! });
  const api = graphClient(ctx, { origin: FACEBOOK_GRAPH, token: long.access_token! });
  const me = await api.get<{ id?: string; name?: string }>('me', { fields: 'id,name' });
  if (!me.id) throw new PlatformError('rejected', 'Facebook did not say who authorised the app');
  const permissions = await api.get<{ data?: { permission: string; status: string }[] }>('me/permissions');
  const granted = new Set((permissions.data ?? []).filter((p) => p.status === 'granted').map((p) => p.permission));
  const missing = metadata.oauth!.scopes.filter((s) => !granted.has(s));
  if (missing.length > 0) {
    throw new PlatformError('rejected', `Facebook did not grant every permission ${metadata.displayName} needs (${missing.join(', ')}): connect again and allow them all`);
  }
  const expiresIn = Number(long.expires_in);
  return {
    token: long.access_token!,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(ctx.clock.now() + expiresIn * 1000).toISOString() : null,
    userId: me.id,
    userName: me.name ?? me.id,
  };
}

/** A Facebook Page the user manages, as `/me/accounts` lists it. */
export interface ManagedPage {
  id: string;
  name: string;
  username?: string;
  access_token?: string;
  tasks?: string[];
  picture?: { data?: { url?: string } };
  instagram_business_account?: { id: string; username?: string; name?: string; profile_picture_url?: string };
}

const PAGE_FIELDS = 'id,name,username,access_token,tasks,picture.type(large)';

/**
 * The Pages the user manages (with their Page tokens). A user token that has expired (the 60 days
 * are over) cannot list them any more; that is not a reason to disconnect a channel whose Page
 * token still works, so it is reported as a refusal asking to reconnect only to choose again.
 */
export async function managedPages(ctx: Ctx, userToken: string, opts: { instagram?: boolean } = {}): Promise<ManagedPage[]> {
  const api: GraphClient = graphClient(ctx, { origin: FACEBOOK_GRAPH, token: userToken });
  const fields = opts.instagram ? `${PAGE_FIELDS},instagram_business_account{id,username,name,profile_picture_url}` : PAGE_FIELDS;
  try {
    return await graphList<ManagedPage>(api, 'me/accounts', { fields, limit: 100 });
  } catch (e) {
    if (e instanceof PlatformError && (e.kind === 'auth_expired' || e.kind === 'reconnect_required')) {
      throw new PlatformError('rejected', `The Facebook login that lists your Pages is no longer valid (${e.message}): reconnect the channel to choose another one`, e.details);
    }
    throw e;
  }
}
