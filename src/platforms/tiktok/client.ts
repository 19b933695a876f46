import { readCredentials, StoredOAuthTokens, storedText, storedTextOrEmpty, storedTextOrNull } from '../common/credentials.js';
import { PlatformError, type Credentials, type OperationContext, type PlatformResponse } from '../platform.js';
import { tiktokData, tiktokTokenError } from './errors.js';

/**
 * TikTok's API v2 as this adapter uses it: Login Kit OAuth (client key, PKCE with a hex
 * challenge), the Content Posting API (creator info, video and photo initialisation, chunked
 * uploads, publish status) and the Display API (user info, video list and query).
 */

export const TIKTOK_API = 'https://open.tiktokapis.com';
export const TIKTOK_WWW = 'https://www.tiktok.com';
/** Where TikTok's `upload_url`s point (tests map this origin to the simulator too). */
export const TIKTOK_UPLOAD = 'https://open-upload.tiktokapis.com';

export const MiB = 1024 * 1024;
/**
 * Bytes per uploaded video chunk. TikTok takes chunks of 5 MB to 64 MB (the last one up to 128 MB,
 * at most 1,000 of them); 10 MiB sits inside that whichever "MB" TikTok means, keeps a resent chunk
 * cheap, and puts a 4 GB video at about 400 chunks.
 */
export const CHUNK_BYTES = 10 * MiB;

/** What a connected TikTok channel stores (sealed by the caller). */
export interface TiktokCredentials {
  accessToken: string;
  refreshToken: string;
  /** ISO times: the access token lasts about 24 h, the refresh token about 365 days */
  expiresAt: string | null;
  refreshExpiresAt: string | null;
  /** the user's id for this app (`open_id`) */
  openId: string;
  /** `@username`, without the @, for post URLs */
  username: string;
  /** the scopes the user granted, comma-separated as TikTok lists them */
  scope: string;
}

export type Ctx = OperationContext;
type ConnectCtx = Omit<OperationContext, 'credentials'>;

const StoredTiktokCredentials = StoredOAuthTokens.extend({
  refreshToken: storedTextOrEmpty,
  refreshExpiresAt: storedTextOrNull,
  openId: storedText,
  username: storedTextOrEmpty,
  scope: storedTextOrEmpty,
});
export const tiktokCreds = (ctx: { credentials: Credentials }): TiktokCredentials => readCredentials(ctx, StoredTiktokCredentials, 'TikTok');

/** `https://www.tiktok.com/@user/video/123` (photo posts live under `/photo/`). */
export function tiktokPostUrl(username: string, id: string, kind: 'video' | 'photo' = 'video'): string {
  return `${TIKTOK_WWW}/@${username}/${kind}/${id}`;
}

// ---------------------------------------------------------------------------------------------
// OAuth (Login Kit v2)

export interface TiktokApp {
  /** TikTok's "client key" (TIKTOK_CLIENT_ID) */
  clientKey: string;
  clientSecret: string;
}

/**
 * TikTok's PKCE challenge is the SHA-256 of the verifier in lower-case HEX (its Login Kit
 * documents hex, where RFC 7636 says base64url). The service hands adapters the RFC form; both
 * encode the same 32 bytes, so it is re-encoded here and the verifier sent unchanged.
 */
export function hexChallenge(base64urlChallenge: string): string {
  const bytes = Buffer.from(base64urlChallenge, 'base64url');
  return bytes.length === 32 ? bytes.toString('hex') : base64urlChallenge;
}

export function tiktokAuthorizeUrl(
  authorizeUrl: string,
  scopes: readonly string[],
  app: TiktokApp,
  input: { state: string; redirectUri: string; codeChallenge?: string },
): string {
  const url = new URL(authorizeUrl);
  url.searchParams.set('client_key', app.clientKey);
  url.searchParams.set('scope', scopes.join(','));
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', input.redirectUri);
  url.searchParams.set('state', input.state);
  if (input.codeChallenge) {
    url.searchParams.set('code_challenge', hexChallenge(input.codeChallenge));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.toString();
}

export interface TiktokTokenSet {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date | null;
  refreshExpiresAt: Date | null;
  openId: string;
  scope: string;
}

function tokenSet(body: Record<string, unknown>, now: number, previousRefresh?: string): TiktokTokenSet {
  const access = body.access_token;
  const openId = body.open_id;
  if (typeof access !== 'string' || access === '' || typeof openId !== 'string' || openId === '') {
    throw new PlatformError('rejected', 'TikTok returned no access token');
  }
  const at = (seconds: unknown) => (Number.isFinite(Number(seconds)) && Number(seconds) > 0 ? new Date(now + Number(seconds) * 1000) : null);
  return {
    accessToken: access,
    // TikTok rotates refresh tokens: the one just returned replaces the one sent.
    refreshToken: typeof body.refresh_token === 'string' && body.refresh_token !== '' ? body.refresh_token : (previousRefresh ?? ''),
    expiresAt: at(body.expires_in),
    refreshExpiresAt: at(body.refresh_expires_in),
    openId,
    scope: typeof body.scope === 'string' ? body.scope : '',
  };
}

async function tokenRequest(ctx: ConnectCtx, tokenUrl: string, params: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await ctx.http.request({
    method: 'POST',
    url: tokenUrl,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'cache-control': 'no-cache' },
    body: new URLSearchParams(params).toString(),
  });
  const err = tiktokTokenError(res, ctx.clock.now());
  if (err) throw err;
  return (res.body ?? {}) as Record<string, unknown>;
}

/** Exchanges the callback's code (single use) with the client key, secret and PKCE verifier. */
export async function exchangeTiktokCode(
  ctx: ConnectCtx,
  tokenUrl: string,
  app: TiktokApp,
  input: { code: string; redirectUri: string; codeVerifier?: string },
): Promise<TiktokTokenSet> {
  let body;
  try {
    body = await tokenRequest(ctx, tokenUrl, {
      client_key: app.clientKey,
      client_secret: app.clientSecret,
      code: input.code,
      grant_type: 'authorization_code',
      redirect_uri: input.redirectUri,
      ...(input.codeVerifier ? { code_verifier: input.codeVerifier } : {}),
    });
  } catch (e) {
    // A refused code is a failed connection, not a lost grant.
    if (e instanceof PlatformError && e.kind === 'reconnect_required') throw new PlatformError('rejected', `TikTok refused the authorisation: ${e.message}`, e.details);
    throw e;
  }
  return tokenSet(body, ctx.clock.now());
}

/** Renews the access token; the refresh token TikTok returns replaces ours. A dead grant is `reconnect_required`. */
export async function refreshTiktokTokens(ctx: Ctx, tokenUrl: string, app: TiktokApp, refreshToken: string): Promise<TiktokTokenSet> {
  if (!refreshToken) throw new PlatformError('reconnect_required', 'This TikTok channel has no refresh token: reconnect it');
  let body;
  try {
    body = await tokenRequest(ctx, tokenUrl, { client_key: app.clientKey, client_secret: app.clientSecret, grant_type: 'refresh_token', refresh_token: refreshToken });
  } catch (e) {
    if (e instanceof PlatformError && (e.kind === 'rejected' || e.kind === 'auth_expired')) throw new PlatformError('reconnect_required', e.message, e.details);
    throw e;
  }
  return tokenSet(body, ctx.clock.now(), refreshToken);
}

// ---------------------------------------------------------------------------------------------
// API v2

export interface TiktokUser {
  open_id?: string;
  union_id?: string;
  avatar_url?: string;
  display_name?: string;
  username?: string;
  follower_count?: number;
  following_count?: number;
  likes_count?: number;
  video_count?: number;
}

export interface CreatorInfo {
  creator_avatar_url?: string;
  creator_username?: string;
  creator_nickname?: string;
  privacy_level_options?: string[];
  comment_disabled?: boolean;
  duet_disabled?: boolean;
  stitch_disabled?: boolean;
  max_video_post_duration_sec?: number;
}

export interface PublishStatus {
  status?: string;
  fail_reason?: string;
  /** TikTok's spelling. Documented as int64: ids past 2^53 arrive as JSON numbers that lose digits when parsed. */
  publicaly_available_post_id?: (string | number)[];
  uploaded_bytes?: number;
  downloaded_bytes?: number;
}

export interface TiktokVideo {
  id: string;
  title?: string;
  video_description?: string;
  create_time?: number;
  share_url?: string;
  cover_image_url?: string;
  view_count?: number;
  like_count?: number;
  comment_count?: number;
  share_count?: number;
}

/** The API bound to one access token: every answer is read through TikTok's error envelope. */
export function tiktokApi(ctx: Pick<Ctx, 'http' | 'clock'>, accessToken: string) {
  const auth = { authorization: `Bearer ${accessToken}` };
  const json = { ...auth, 'content-type': 'application/json; charset=UTF-8' };
  const post = async <T>(path: string, body: unknown): Promise<T> =>
    tiktokData<T>(await ctx.http.request({ method: 'POST', url: `${TIKTOK_API}${path}`, headers: json, body }), ctx.clock.now());
  return {
    async user(fields: readonly string[]): Promise<TiktokUser> {
      const res = await ctx.http.request({ method: 'GET', url: `${TIKTOK_API}/v2/user/info/?fields=${fields.join(',')}`, headers: auth });
      return tiktokData<{ user?: TiktokUser }>(res, ctx.clock.now()).user ?? {};
    },
    creatorInfo: () => post<CreatorInfo>('/v2/post/publish/creator_info/query/', {}),
    initVideo: (body: unknown) => post<{ publish_id?: string; upload_url?: string }>('/v2/post/publish/video/init/', body),
    initInboxVideo: (body: unknown) => post<{ publish_id?: string; upload_url?: string }>('/v2/post/publish/inbox/video/init/', body),
    initContent: (body: unknown) => post<{ publish_id?: string }>('/v2/post/publish/content/init/', body),
    status: (publishId: string) => post<PublishStatus>('/v2/post/publish/status/fetch/', { publish_id: publishId }),
    listVideos: (fields: readonly string[], body: { max_count: number; cursor?: number }) =>
      post<{ videos?: TiktokVideo[]; cursor?: number; has_more?: boolean }>(`/v2/video/list/?fields=${fields.join(',')}`, body),
    queryVideos: (fields: readonly string[], ids: string[]) => post<{ videos?: TiktokVideo[] }>(`/v2/video/query/?fields=${fields.join(',')}`, { filters: { video_ids: ids } }),
    /** PUTs one chunk (a slice of the stored file, streamed) to the upload URL; TikTok answers 206, or 201 for the last. */
    async putChunk(uploadUrl: string, bytes: Blob, range: { first: number; last: number; total: number }, mimeType: string): Promise<PlatformResponse> {
      return ctx.http.request({
        method: 'PUT',
        url: uploadUrl,
        headers: { 'content-type': mimeType, 'content-range': `bytes ${range.first}-${range.last}/${range.total}` },
        body: bytes,
        timeoutMs: 300_000,
      });
    },
  };
}

export type TiktokApi = ReturnType<typeof tiktokApi>;

/**
 * How a video of `size` bytes is cut: one chunk when it is small (under two chunks' worth, which
 * covers TikTok's "under 5 MB in one piece"), else `chunkBytes` pieces whose count is
 * floor(size / chunkBytes), the remainder riding on the last one (so the last is under two chunks,
 * well below TikTok's 128 MB). These are exactly the `source_info` numbers TikTok checks.
 */
export function planChunks(size: number, chunkBytes = CHUNK_BYTES): { chunkSize: number; count: number } {
  if (size < 2 * chunkBytes) return { chunkSize: size, count: 1 };
  return { chunkSize: chunkBytes, count: Math.floor(size / chunkBytes) };
}

/** The byte range of chunk `k` (the last one takes the remainder). */
export function chunkRange(k: number, plan: { chunkSize: number; count: number }, size: number): { first: number; last: number } {
  const first = k * plan.chunkSize;
  const end = k === plan.count - 1 ? size : first + plan.chunkSize;
  return { first, last: end - 1 };
}
