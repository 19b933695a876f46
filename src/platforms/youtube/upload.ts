import { PlatformError, type PlatformResponse } from '../platform.js';
import { googleRequest, YOUTUBE_UPLOAD, type Ctx, type YoutubeCredentials } from './api.js';
import { youtubeError } from './errors.js';

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
