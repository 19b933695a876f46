import { buildAuthorizeUrl, exchangeCode, refreshTokens, type OAuthApp, type TokenSet } from '../common/oauth2.js';
import { PlatformError, type Credentials, type OperationContext, type PlatformRequest, type PlatformResponse } from '../platform.js';
import { youtubeOk } from './errors.js';
import { youtubeMetadata } from './metadata.js';

/**
 * The Google hosts the YouTube adapter talks to (real URLs; PLATFORM_ORIGINS rewrites them for
 * the simulator), the stored credentials, an authenticated request helper, OAuth and channels.
 */

export const GOOGLE_ACCOUNTS_ORIGIN = 'https://accounts.google.com';
export const GOOGLE_OAUTH_ORIGIN = 'https://oauth2.googleapis.com';
export const GOOGLE_APIS_ORIGIN = 'https://www.googleapis.com';
export const YOUTUBE_ANALYTICS_ORIGIN = 'https://youtubeanalytics.googleapis.com';
/** YouTube Data API v3 */
export const YOUTUBE_API = `${GOOGLE_APIS_ORIGIN}/youtube/v3`;
/** the media upload endpoint of the Data API */
export const YOUTUBE_UPLOAD = `${GOOGLE_APIS_ORIGIN}/upload/youtube/v3`;

export const youtubeVideoUrl = (id: string, short = false) => (short ? `https://www.youtube.com/shorts/${id}` : `https://www.youtube.com/watch?v=${id}`);
export const youtubeCommentUrl = (videoId: string, commentId: string) => `https://www.youtube.com/watch?v=${videoId}&lc=${commentId}`;

/** What a connected YouTube channel stores (sealed by the caller). */
export interface YoutubeCredentials {
  accessToken: string;
  /** long-lived; Google keeps it on refresh (no rotation) */
  refreshToken: string | null;
  /** ISO time the access token expires (one hour after issue) */
  expiresAt: string | null;
  /** the channel this Tidings channel is (`UC…`) */
  channelId: string;
  /** the channel's "uploads" playlist (`UU…`), where its videos are listed newest first */
  uploadsPlaylistId: string | null;
}

export type Ctx = OperationContext;
type ConnectCtx = Omit<OperationContext, 'credentials'>;

export function youtubeCreds(ctx: { credentials: Credentials }): YoutubeCredentials {
  const c = ctx.credentials as Partial<YoutubeCredentials>;
  if (!c.accessToken || !c.channelId) throw new PlatformError('reconnect_required', 'Stored YouTube credentials are incomplete');
  return {
    accessToken: c.accessToken,
    refreshToken: c.refreshToken ?? null,
    expiresAt: c.expiresAt ?? null,
    channelId: c.channelId,
    uploadsPlaylistId: c.uploadsPlaylistId ?? null,
  };
}

export function requireApp(app: OAuthApp | undefined): OAuthApp {
  if (!app?.clientId || !app.clientSecret) throw new PlatformError('unsupported', 'YouTube is not configured on this server: set YOUTUBE_CLIENT_ID and YOUTUBE_CLIENT_SECRET');
  return app;
}

/** Sends a request with the bearer token and classifies Google's error answers. */
export async function googleRequest(ctx: Pick<Ctx, 'http' | 'clock'>, accessToken: string, req: PlatformRequest): Promise<PlatformResponse> {
  const res = await ctx.http.request({ ...req, headers: { authorization: `Bearer ${accessToken}`, ...req.headers } });
  return youtubeOk(res, ctx.clock.now());
}

export async function googleGet<T>(ctx: Pick<Ctx, 'http' | 'clock'>, accessToken: string, url: string): Promise<T> {
  return (await googleRequest(ctx, accessToken, { method: 'GET', url })).body as T;
}

// ---------------------------------------------------------------------------------------------
// OAuth

/**
 * The consent URL: offline access (a refresh token) and `prompt=consent`, without which Google
 * gives a refresh token only the first time an account grants this app.
 */
export function youtubeAuthorizeUrl(app: OAuthApp, input: { state: string; redirectUri: string; codeChallenge?: string }): string {
  return buildAuthorizeUrl(youtubeMetadata.oauth!, {
    clientId: app.clientId,
    redirectUri: input.redirectUri,
    state: input.state,
    codeChallenge: input.codeChallenge,
    extra: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
  });
}

export function exchangeYoutubeCode(app: OAuthApp, input: { code: string; redirectUri: string; codeVerifier?: string }, ctx: ConnectCtx): Promise<TokenSet> {
  return exchangeCode(ctx.http, {
    tokenUrl: youtubeMetadata.oauth!.tokenUrl,
    app,
    code: input.code,
    redirectUri: input.redirectUri,
    codeVerifier: input.codeVerifier,
    clientAuth: 'body',
    now: ctx.clock.now(),
  });
}

export function tokenCredentials(tokens: TokenSet): Pick<YoutubeCredentials, 'accessToken' | 'refreshToken' | 'expiresAt'> {
  return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt?.toISOString() ?? null };
}

/**
 * Renews the one-hour access token. Google keeps the refresh token (no rotation) and refuses a
 * revoked or expired one (7 days for apps in "Testing") with `invalid_grant`: reconnect.
 */
export async function refreshYoutube(app: OAuthApp | undefined, ctx: Ctx): Promise<{ credentials: Credentials; expiresAt: Date | null }> {
  const c = youtubeCreds(ctx);
  if (!c.refreshToken) throw new PlatformError('reconnect_required', 'This YouTube channel has no refresh token: reconnect it');
  const tokens = await refreshTokens(ctx.http, { tokenUrl: youtubeMetadata.oauth!.tokenUrl, app: requireApp(app), refreshToken: c.refreshToken, clientAuth: 'body', now: ctx.clock.now() });
  const next: YoutubeCredentials = { ...c, ...tokenCredentials(tokens) };
  return { credentials: { ...next }, expiresAt: tokens.expiresAt };
}

// ---------------------------------------------------------------------------------------------
// Channels

export interface YoutubeChannel {
  id: string;
  title: string;
  /** the handle, `@name` */
  customUrl: string | null;
  picture: string | null;
  uploadsPlaylistId: string | null;
}

interface ChannelResource {
  id: string;
  snippet?: { title?: string; customUrl?: string; thumbnails?: Record<string, { url?: string }> };
  contentDetails?: { relatedPlaylists?: { uploads?: string } };
}

function toChannel(r: ChannelResource): YoutubeChannel {
  const thumbs = r.snippet?.thumbnails ?? {};
  return {
    id: r.id,
    title: r.snippet?.title || r.id,
    customUrl: r.snippet?.customUrl ?? null,
    picture: thumbs.default?.url ?? thumbs.medium?.url ?? thumbs.high?.url ?? null,
    uploadsPlaylistId: r.contentDetails?.relatedPlaylists?.uploads ?? null,
  };
}

/** The channels the grant reaches (`channels?mine=true`), in Google's order. */
export async function myChannels(ctx: Pick<Ctx, 'http' | 'clock'>, accessToken: string): Promise<YoutubeChannel[]> {
  const out: YoutubeChannel[] = [];
  let pageToken: string | undefined;
  do {
    const q = new URLSearchParams({ part: 'snippet,contentDetails', mine: 'true', maxResults: '50' });
    if (pageToken) q.set('pageToken', pageToken);
    const page = await googleGet<{ items?: ChannelResource[]; nextPageToken?: string }>(ctx, accessToken, `${YOUTUBE_API}/channels?${q.toString()}`);
    out.push(...(page.items ?? []).map(toChannel));
    pageToken = page.nextPageToken;
  } while (pageToken);
  return out;
}

/** One channel by id (its uploads playlist), or undefined when Google does not show it. */
export async function channelById(ctx: Pick<Ctx, 'http' | 'clock'>, accessToken: string, id: string): Promise<YoutubeChannel | undefined> {
  const page = await googleGet<{ items?: ChannelResource[] }>(ctx, accessToken, `${YOUTUBE_API}/channels?part=snippet,contentDetails&id=${encodeURIComponent(id)}`);
  const item = page.items?.[0];
  return item ? toChannel(item) : undefined;
}

export function channelAccount(channel: YoutubeChannel, creds: Pick<YoutubeCredentials, 'accessToken' | 'refreshToken' | 'expiresAt'>) {
  const credentials: YoutubeCredentials = { ...creds, channelId: channel.id, uploadsPlaylistId: channel.uploadsPlaylistId };
  return {
    internalId: channel.id,
    name: channel.title,
    profile: channel.customUrl,
    picture: channel.picture,
    credentials: { ...credentials },
    expiresAt: creds.expiresAt ? new Date(creds.expiresAt) : null,
  };
}
