import { graphErrorBody, metaGraphError, metaMessage } from '../common/meta-graph.js';
import { PlatformError, type PlatformResponse } from '../platform.js';

/**
 * Threads answers failures in Meta's Graph shape (`{ error: { message, type, code, error_subcode,
 * error_user_title, error_user_msg, is_transient, fbtrace_id } }`, type `OAuthException` or
 * `THApiException`), classified by `common/meta-graph.ts`. What is Threads' own is checked first.
 * A container that failed processing is not an HTTP error at all: its status read answers
 * HTTP 200 `{ status: "ERROR", error_message }` (see {@link containerError}).
 */

/** `threads_publish` on a container Threads has not finished (or already removed): "Media Not Found". */
export const MEDIA_NOT_FOUND = { code: 24, subcode: 4279009 } as const;
/** The profile's 24-hour publishing quota (250 posts, 1,000 replies) is used up (assumed shape: code 9, as Instagram's publishing limit). */
export const PUBLISHING_LIMIT_CODE = 9;
/** Threads does not say when the rolling 24-hour quota frees a slot: look again in an hour. */
export const PUBLISHING_LIMIT_WAIT_SECONDS = 3600;
/** Call-budget limits (codes 4, 17, 32, 613, 800xx) without a wait in the headers: Meta's windows roll over in minutes. */
export const DEFAULT_RATE_LIMIT_WAIT_SECONDS = 15 * 60;

/** The permission codes of the Graph API: the grant lacks a scope (only a new authorisation adds it). */
const PERMISSION_CODES = new Set([10]);

/** The Graph answer's own code and subcode, if it is an error. */
export function graphCode(res: PlatformResponse): { code?: number; subcode?: number } | undefined {
  const e = graphErrorBody(res);
  return e ? { code: e.code, subcode: e.error_subcode } : undefined;
}

/** True when the error is Threads' "Media Not Found" for a container it has not finished yet. */
export function isMediaNotFound(err: unknown): boolean {
  return err instanceof PlatformError && err.details.platformCode === `${MEDIA_NOT_FOUND.code}/${MEDIA_NOT_FOUND.subcode}`;
}

/** Classifies a Threads answer (undefined for a success). */
export function threadsError(res: PlatformResponse, now = Date.now()): PlatformError | undefined {
  const e = graphErrorBody(res);
  const err = metaGraphError(res, now);
  if (!err || !e) return err;
  const code = e.code ?? 0;
  const details = err.details;
  if (code === MEDIA_NOT_FOUND.code && e.error_subcode === MEDIA_NOT_FOUND.subcode) {
    // Publishing a container Threads is still preparing: it will be there in a moment.
    return new PlatformError('transient', metaMessage(e, 'Media Not Found'), details);
  }
  if (code === PUBLISHING_LIMIT_CODE) {
    return new PlatformError('rate_limited', metaMessage(e, 'The Threads publishing limit is reached'), { ...details, retryAfterSeconds: PUBLISHING_LIMIT_WAIT_SECONDS });
  }
  if (err.kind === 'rate_limited' && err.details.retryAfterSeconds === undefined) {
    return new PlatformError('rate_limited', err.message, { ...details, retryAfterSeconds: DEFAULT_RATE_LIMIT_WAIT_SECONDS });
  }
  if (PERMISSION_CODES.has(code)) {
    return new PlatformError('rejected', `${err.message} (the channel lacks a Threads permission: reconnect it to grant it)`, details);
  }
  if (/could not be fetched|FAILED_DOWNLOADING/i.test(`${e.message ?? ''} ${e.error_user_msg ?? ''}`)) {
    return new PlatformError('rejected', `${err.message} (Threads downloads media from this server's PUBLIC_URL, which must be reachable from the internet over https)`, details);
  }
  return err;
}

/** Throws the classified error of a failed answer; returns the body of a successful one. */
export function threadsResult<T>(res: PlatformResponse, now = Date.now()): T {
  const err = threadsError(res, now);
  if (err) throw err;
  return res.body as T;
}

/** What Threads' `error_message` codes of a failed container mean, for the user reading the post's error. */
const PROCESSING_ERRORS: Record<string, string> = {
  FAILED_DOWNLOADING_VIDEO: "Threads could not download the video from this server's PUBLIC_URL",
  FAILED_PROCESSING_AUDIO: 'Threads could not process the audio track',
  FAILED_PROCESSING_VIDEO: 'Threads could not process the video',
  INVALID_ASPEC_RATIO: 'the aspect ratio is not accepted',
  INVALID_ASPECT_RATIO: 'the aspect ratio is not accepted',
  INVALID_BIT_RATE: 'the bit rate is not accepted',
  INVALID_DURATION: 'the duration is not accepted (at most 5 minutes)',
  INVALID_FRAME_RATE: 'the frame rate is not accepted (23–60 FPS)',
  INVALID_AUDIO_CHANNELS: 'the number of audio channels is not accepted',
  INVALID_AUDIO_CHANNEL_LAYOUT: 'the audio channel layout is not accepted',
};

/** The `rejected` error of a container whose status is ERROR (or EXPIRED), with Threads' own words first. */
export function containerError(status: string, errorMessage: string | undefined): PlatformError {
  if (status === 'EXPIRED') return new PlatformError('rejected', 'The Threads media container expired before it was published (containers last 24 hours)', { platformCode: 'EXPIRED' });
  const code = errorMessage?.trim() || 'UNKNOWN';
  const meaning = PROCESSING_ERRORS[code];
  return new PlatformError('rejected', `Threads could not process the media: ${code}${meaning ? ` (${meaning})` : ''}`, { platformCode: code });
}
