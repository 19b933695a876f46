import { PlatformError, type OperationContext, type PublishItem } from '../platform.js';
import { xData } from './errors.js';

/**
 * X media upload, API v2. Still images go in one request (`POST /2/media/upload`); videos and
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

const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` });

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
