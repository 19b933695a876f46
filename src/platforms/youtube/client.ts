import { readCredentials, StoredOAuthTokens, storedText, storedTextOrNull } from '../common/credentials.js';
import { buildAuthorizeUrl, exchangeCode, refreshTokens, type OAuthApp, type TokenSet } from '../common/oauth2.js';
import { PlatformError, type Credentials, type OperationContext, type PlatformRequest, type PlatformResponse } from '../platform.js';
import { youtubeError, youtubeOk } from './errors.js';
import { youtubeMetadata } from './metadata.js';

/**
 * The Google hosts the YouTube adapter talks to (real URLs; PLATFORM_ORIGINS rewrites them for
 * the simulator), the stored credentials, an authenticated request helper, OAuth, channels, and
 * (below) the resumable video upload.
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

const StoredYoutubeCredentials = StoredOAuthTokens.extend({ channelId: storedText, uploadsPlaylistId: storedTextOrNull });
export const youtubeCreds = (ctx: { credentials: Credentials }): YoutubeCredentials => readCredentials(ctx, StoredYoutubeCredentials, 'YouTube');

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

// ── Resumable upload ─────────────────────────────────────────────────────────────────────────

/**
 * YouTube's resumable upload protocol (Data API "Resumable uploads"):
 *
 * 1. `POST /upload/youtube/v3/videos?uploadType=resumable&part=snippet,status` with the video
 *    resource as JSON and `X-Upload-Content-Length`/`-Type`: the session URI comes back in
 *    `Location` (valid for about a week).
 * 2. `PUT {session}` with `Content-Range: bytes a-b/N` per chunk; every chunk but the last is a
 *    multiple of 256 KiB. An unfinished upload answers **308 Resume Incomplete** with
 *    `Range: bytes=0-x` (the bytes Google kept, which may be fewer than were sent), the last one
 *    200/201 with the video resource.
 * 3. After an interruption, `PUT {session}` with no body and the Content-Range `bytes *` + `/N`
 *    (an asterisk: no bytes) asks where to go on: 308 + `Range` (none: nothing kept), or 200/201 when the upload had completed.
 *    404/410: the session is gone; a new one starts from zero.
 *
 * Every call of `continueUpload` first asks Google where the upload stands, so an attempt that
 * died mid-chunk (a crash, a timeout, a lost answer) goes on from what Google kept, never from
 * zero while the session lives, and never sends a byte range twice.
 */

export const CHUNK_GRANULE = 256 * 1024;

/** The video resource sent when the session is made (`part=snippet,status`). */
export interface VideoResource {
  snippet: { title: string; description: string; tags?: string[]; categoryId?: string };
  status: { privacyStatus: 'public' | 'private' | 'unlisted'; selfDeclaredMadeForKids?: boolean; publishAt?: string };
}

export interface UploadState {
  /** the session URI (`Location` of step 1) */
  session: string;
  /** bytes Google had kept when this state was written (informational: always asked again) */
  offset: number;
  total: number;
}

export interface UploadOptions {
  /** bytes per PUT (a multiple of 256 KiB) */
  chunkBytes: number;
  /** most PUTs in one call (the rest goes on in the next `checkPublish`) */
  maxChunksPerCall: number;
  /** stop starting new chunks after this long in one call (ms of real time) */
  budgetMs: number;
  /** resumes after an interrupted chunk within one call before giving the call up */
  maxResumesPerCall: number;
}

export type UploadStep =
  | { status: 'uploading'; upload: UploadState }
  | { status: 'complete'; video: UploadedVideo }
  /** the session expired or was never known to Google: start a new one */
  | { status: 'expired'; reason: string };

export interface UploadedVideo {
  id: string;
  snippet?: { channelId?: string; title?: string; description?: string };
  status?: { uploadStatus?: string; privacyStatus?: string };
}

/** Step 1: a new upload session for `video` of `total` bytes of `mimeType`. */
export async function createSession(
  ctx: Ctx,
  c: YoutubeCredentials,
  input: { video: VideoResource; total: number; mimeType: string; notifySubscribers: boolean },
): Promise<UploadState> {
  const q = new URLSearchParams({ uploadType: 'resumable', part: 'snippet,status' });
  if (!input.notifySubscribers) q.set('notifySubscribers', 'false');
  const res = await googleRequest(ctx, c.accessToken, {
    method: 'POST',
    url: `${YOUTUBE_UPLOAD}/videos?${q.toString().replace(/%2C/g, ',')}`,
    headers: {
      'content-type': 'application/json; charset=UTF-8',
      'x-upload-content-length': String(input.total),
      'x-upload-content-type': input.mimeType,
    },
    body: input.video,
  });
  const session = res.headers.location;
  if (!session) throw new PlatformError('transient', `YouTube opened no upload session (HTTP ${res.status} without a Location)`, { status: res.status });
  return { session, offset: 0, total: input.total };
}

/** The next byte Google wants, from a 308's `Range: bytes=0-x` (none: nothing kept yet). */
export function keptBytes(res: PlatformResponse): number {
  const range = res.headers.range;
  const m = range ? /bytes=0-(\d+)/.exec(range) : null;
  return m ? Number(m[1]) + 1 : 0;
}

function isComplete(res: PlatformResponse): boolean {
  return res.status === 200 || res.status === 201;
}

function completedVideo(res: PlatformResponse): UploadedVideo {
  const video = res.body as UploadedVideo | null;
  if (!video || typeof video.id !== 'string') {
    throw new PlatformError('transient', `YouTube completed the upload (HTTP ${res.status}) without naming the video`, { status: res.status });
  }
  return video;
}

/** One PUT to the session, the answer unclassified (308 and 404 are part of the protocol). */
async function put(ctx: Ctx, c: YoutubeCredentials, session: string, headers: Record<string, string>, body: Blob | string): Promise<PlatformResponse> {
  return ctx.http.request({ method: 'PUT', url: session, headers: { authorization: `Bearer ${c.accessToken}`, ...headers }, body, timeoutMs: 180_000 });
}

type Answer = { kind: 'incomplete'; kept: number } | { kind: 'complete'; video: UploadedVideo } | { kind: 'expired'; reason: string };

/** Reads a session answer: 308 / 200-201 / 404-410, or throws the classified error. */
function answerOf(res: PlatformResponse, now: number): Answer {
  if (res.status === 308) return { kind: 'incomplete', kept: keptBytes(res) };
  if (isComplete(res)) return { kind: 'complete', video: completedVideo(res) };
  if (res.status === 404 || res.status === 410) return { kind: 'expired', reason: `the upload session is gone (HTTP ${res.status})` };
  throw youtubeError(res, now) ?? new PlatformError('transient', `YouTube answered the upload with HTTP ${res.status}`, { status: res.status });
}

/** Step 3: where the upload stands. */
export async function queryUpload(ctx: Ctx, c: YoutubeCredentials, u: UploadState): Promise<Answer> {
  return answerOf(await put(ctx, c, u.session, { 'content-range': `bytes */${u.total}` }, ''), ctx.clock.now());
}

/**
 * Goes on with an upload: asks Google where it stands, then sends chunks from there until done,
 * or until this call's share of work is spent. A chunk that fails in flight (network, 5xx) is
 * followed by a status query and the upload goes on from what Google kept.
 */
export async function continueUpload(ctx: Ctx, c: YoutubeCredentials, u: UploadState, blob: Blob, opts: UploadOptions): Promise<UploadStep> {
  if (blob.size !== u.total) throw new PlatformError('rejected', `The video file changed size since the upload began (${blob.size} bytes, ${u.total} declared)`);
  const started = performance.now();
  let resumes = 0;
  let answer = await queryUpload(ctx, c, u);
  let chunks = 0;
  for (;;) {
    if (answer.kind === 'complete') return { status: 'complete', video: answer.video };
    if (answer.kind === 'expired') return { status: 'expired', reason: answer.reason };
    const offset = answer.kept;
    if (chunks >= opts.maxChunksPerCall || (chunks > 0 && performance.now() - started > opts.budgetMs)) {
      return { status: 'uploading', upload: { ...u, offset } };
    }
    const end = Math.min(offset + opts.chunkBytes, u.total);
    chunks++;
    try {
      const res = await put(ctx, c, u.session, { 'content-type': blob.type || 'application/octet-stream', 'content-range': `bytes ${offset}-${end - 1}/${u.total}` }, blob.slice(offset, end));
      answer = answerOf(res, ctx.clock.now());
    } catch (e) {
      // The chunk may have partly arrived: ask Google what it kept and go on from there.
      const interrupted = e instanceof PlatformError && e.kind === 'transient';
      if (!interrupted || resumes >= opts.maxResumesPerCall) throw e;
      resumes++;
      ctx.logger.warn({ err: e, offset }, 'YouTube upload chunk interrupted; asking where to resume');
      answer = await queryUpload(ctx, c, u);
    }
  }
}
