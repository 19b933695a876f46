import { PlatformError, type OperationContext, type PublishItem } from '../platform.js';
import { xData, xError } from './errors.js';

/**
 * The X API v2 as the adapter uses it: posts (`POST /2/tweets`), the account's timeline, users
 * and their figures, and media upload.
 *
 * Media upload, API v2. Still images go in one request (`POST /2/media/upload`); videos and
 * animated GIFs go in chunks (`initialize` → `append`… → `finalize`) and X may then process them
 * for a while: `processing_info.state` is `pending`/`in_progress` until `succeeded` or `failed`,
 * read back with `GET /2/media/upload?command=STATUS`. A media id can be attached to a post only
 * once it has succeeded.
 */

export const X_API = 'https://api.x.com';

/** Chunk size of `append`, read from the file-backed Blob one slice at a time (never whole). */
export const CHUNK_BYTES = 1024 * 1024;

/** X's limit on alt text. */
const ALT_TEXT_MAX = 1000;

export type ProcessingState = 'pending' | 'in_progress' | 'succeeded' | 'failed';

export interface ProcessingInfo {
  state: ProcessingState;
  check_after_secs?: number;
  progress_percent?: number;
  error?: { code?: number; name?: string; message?: string };
}

interface MediaData {
  id: string;
  media_key: string;
  processing_info?: ProcessingInfo;
}

export interface UploadedMedia {
  id: string;
  key: string;
  /** `succeeded` when X attached no processing_info (the media is ready at once) */
  state: ProcessingState;
  error?: string;
}

type Media = PublishItem['media'][number];
type Ctx = Pick<OperationContext, 'http' | 'clock' | 'openMedia'>;
type ApiCtx = Pick<OperationContext, 'http' | 'clock'>;

const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` });

/** The JSON body of `POST /2/tweets` (the fields this adapter sends). */
export interface TweetBody {
  text: string;
  media?: { media_ids: string[] };
  reply?: { in_reply_to_tweet_id: string };
  reply_settings?: string;
  community_id?: string;
  made_with_ai?: boolean;
  paid_partnership?: boolean;
}

export interface Tweet {
  id: string;
  text: string;
  created_at?: string;
  attachments?: { media_keys?: string[] };
}

export function xPostUrl(username: string, id: string): string {
  return `https://x.com/${username}/status/${id}`;
}

/** RFC 3339 to the second (YYYY-MM-DDTHH:mm:ssZ), as X wants it. */
export function xSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `POST /2/tweets`: the new post's id. */
export async function createTweet(ctx: ApiCtx, accessToken: string, body: TweetBody): Promise<{ id: string }> {
  const res = await ctx.http.request({ method: 'POST', url: `${X_API}/2/tweets`, headers: bearer(accessToken), body });
  return xData<{ id: string }>(res, ctx.clock.now());
}

/** `GET /2/users/:id/tweets` since `since`, page after page until `limit` posts. */
export async function timeline(ctx: ApiCtx, accessToken: string, userId: string, input: { since: Date; limit: number; fields: string }): Promise<Tweet[]> {
  const out: Tweet[] = [];
  let next: string | undefined;
  do {
    const q = new URLSearchParams({
      // X takes 5–100 per page.
      max_results: String(Math.min(100, Math.max(5, input.limit - out.length))),
      start_time: xSeconds(input.since.getTime()),
      'tweet.fields': input.fields,
    });
    if (next) q.set('pagination_token', next);
    const res = await ctx.http.request({ method: 'GET', url: `${X_API}/2/users/${encodeURIComponent(userId)}/tweets?${q.toString()}`, headers: bearer(accessToken) });
    const err = xError(res, ctx.clock.now());
    if (err) throw err;
    // An empty timeline has no `data`, only `meta.result_count: 0`.
    const page = res.body as { data?: Tweet[]; meta?: { next_token?: string } };
    out.push(...(page.data ?? []));
    next = page.meta?.next_token;
  } while (next && out.length < input.limit);
  return out.slice(0, input.limit);
}

/** `GET /2/users/me`: the account the token belongs to. */
export async function getMe(ctx: ApiCtx, accessToken: string) {
  const res = await ctx.http.request({
    method: 'GET',
    url: `${X_API}/2/users/me?user.fields=username,verified,profile_image_url`,
    headers: bearer(accessToken),
  });
  return xData<{ id: string; name?: string; username: string; verified?: boolean; profile_image_url?: string }>(res, ctx.clock.now());
}

/** `GET /2/users/:id` with `public_metrics`. */
export async function userMetrics(ctx: ApiCtx, accessToken: string, userId: string) {
  const res = await ctx.http.request({ method: 'GET', url: `${X_API}/2/users/${encodeURIComponent(userId)}?user.fields=public_metrics`, headers: bearer(accessToken) });
  return xData<{ public_metrics?: { followers_count?: number; following_count?: number; tweet_count?: number } }>(res, ctx.clock.now()).public_metrics ?? {};
}

/** `GET /2/tweets/:id` with `public_metrics`. */
export async function tweetMetrics(ctx: ApiCtx, accessToken: string, postId: string) {
  const res = await ctx.http.request({ method: 'GET', url: `${X_API}/2/tweets/${encodeURIComponent(postId)}?tweet.fields=public_metrics`, headers: bearer(accessToken) });
  return (
    xData<{
      public_metrics?: { impression_count?: number; like_count?: number; retweet_count?: number; reply_count?: number; quote_count?: number; bookmark_count?: number };
    }>(res, ctx.clock.now()).public_metrics ?? {}
  );
}

function category(m: Media): 'tweet_image' | 'tweet_gif' | 'tweet_video' {
  if (m.type === 'video') return 'tweet_video';
  return m.mimeType === 'image/gif' ? 'tweet_gif' : 'tweet_image';
}

function fromData(d: MediaData): UploadedMedia {
  const info = d.processing_info;
  return {
    id: d.id,
    key: d.media_key,
    state: info?.state ?? 'succeeded',
    ...(info?.state === 'failed' ? { error: processingError(info) } : {}),
  };
}

export function processingError(info: ProcessingInfo): string {
  const e = info.error;
  return `X could not process the media: ${e?.message ?? e?.name ?? 'processing failed'}`;
}

async function uploadOneShot(ctx: Ctx, accessToken: string, m: Media, blob: Blob): Promise<UploadedMedia> {
  const form = new FormData();
  form.set('media_category', category(m));
  form.set('media', blob, m.id);
  const res = await ctx.http.request({ method: 'POST', url: `${X_API}/2/media/upload`, headers: bearer(accessToken), body: form });
  return fromData(xData<MediaData>(res, ctx.clock.now()));
}

async function uploadChunked(ctx: Ctx, accessToken: string, m: Media, blob: Blob): Promise<UploadedMedia> {
  const init = xData<MediaData>(
    await ctx.http.request({
      method: 'POST',
      url: `${X_API}/2/media/upload/initialize`,
      headers: bearer(accessToken),
      body: { media_type: m.mimeType, total_bytes: blob.size, media_category: category(m) },
    }),
    ctx.clock.now(),
  );
  for (let index = 0, offset = 0; offset < blob.size; index++, offset += CHUNK_BYTES) {
    const form = new FormData();
    form.set('segment_index', String(index));
    form.set('media', blob.slice(offset, Math.min(offset + CHUNK_BYTES, blob.size)), m.id);
    const res = await ctx.http.request({ method: 'POST', url: `${X_API}/2/media/upload/${init.id}/append`, headers: bearer(accessToken), body: form });
    // append answers an empty 2xx; only failures carry a body worth reading.
    if (res.status >= 300) xData(res, ctx.clock.now());
  }
  const done = xData<MediaData>(
    await ctx.http.request({ method: 'POST', url: `${X_API}/2/media/upload/${init.id}/finalize`, headers: bearer(accessToken) }),
    ctx.clock.now(),
  );
  return fromData({ ...done, media_key: done.media_key ?? init.media_key });
}

async function setAltText(ctx: Ctx, accessToken: string, mediaId: string, alt: string): Promise<void> {
  xData(
    await ctx.http.request({
      method: 'POST',
      url: `${X_API}/2/media/metadata`,
      headers: bearer(accessToken),
      body: { id: mediaId, metadata: { alt_text: { text: [...alt].slice(0, ALT_TEXT_MAX).join('') } } },
    }),
    ctx.clock.now(),
  );
}

/**
 * Uploads one media item (with its alt text, for images and GIFs) and answers its id and
 * processing state. Nothing is posted yet, so every failure here is safe to retry: a network
 * failure is reported as `transient` with `outcomeUnknown: false`, whatever the HTTP client said,
 * because at worst an unused media id is left behind (X drops it after `expires_after_secs`).
 */
export async function uploadMedia(ctx: Ctx, accessToken: string, m: Media): Promise<UploadedMedia> {
  try {
    const blob = await ctx.openMedia(m);
    const uploaded = category(m) === 'tweet_image' ? await uploadOneShot(ctx, accessToken, m, blob) : await uploadChunked(ctx, accessToken, m, blob);
    if (m.alt && m.type === 'image' && uploaded.state !== 'failed') await setAltText(ctx, accessToken, uploaded.id, m.alt);
    return uploaded;
  } catch (e) {
    if (e instanceof PlatformError && e.details.outcomeUnknown) throw new PlatformError(e.kind, e.message, { ...e.details, outcomeUnknown: false });
    throw e;
  }
}

/** The current processing state of an uploaded media (idempotent). */
export async function mediaStatus(ctx: Ctx, accessToken: string, mediaId: string): Promise<UploadedMedia> {
  const res = await ctx.http.request({
    method: 'GET',
    url: `${X_API}/2/media/upload?command=STATUS&media_id=${encodeURIComponent(mediaId)}`,
    headers: bearer(accessToken),
  });
  return fromData(xData<MediaData>(res, ctx.clock.now()));
}
