import { retryAfterSeconds } from '../../../platforms/http-errors.js';
import type { PlatformResponse } from '../../../platforms/platform.js';
import { VideoProviderError } from '../provider.js';

/**
 * KIE.ai answers `{ code, msg, data }`. `code` 200 is success; any other is a failure, and KIE
 * sends many failures under HTTP 200 (402 out of credits, 422 validation, 455 maintenance, 501
 * generation failed…), others with the HTTP status as well (401 with "You do not have access
 * permissions"). So the body's code decides, and the HTTP status only when the body has none.
 *
 * Documented codes: 400 (submit: "1080P is processing"; record-info: the prompt was flagged, the
 * picture could not be fetched), 401 bad key, 402 insufficient credits, 404 not found, 422
 * validation (record-info: "record is null", records kept 14 days), 429 rate limited, 451 the
 * picture could not be fetched, 455 maintenance, 500 server error, 501 generation failed, 505
 * feature disabled.
 */
export interface KieBody {
  code?: unknown;
  msg?: unknown;
  data?: unknown;
}

/**
 * What to do about a failed answer: `retry` (rate limit, maintenance, server error, a network
 * failure: the same request may work a little later), or a final kind of `VideoProviderError`.
 */
export interface KieFailure {
  kind: 'retry' | 'unavailable' | 'invalid_params' | 'failed';
  /** KIE's code (the HTTP status when the body has none; 0 for a network failure) */
  code: number;
  /** KIE's own words, cleaned */
  message: string;
  /** from `Retry-After` and similar headers */
  retryAfterMs?: number;
}

/** The operation a response answers: a refused submission is the request's fault, a refused poll is the task's. */
export type KieOperation = 'submit' | 'poll' | 'credits';

/** KIE's message as users should read it: whitespace folded, cut to 300 characters. */
export function kieMessage(raw: string): string {
  const cleaned = raw.replace(/\s+/g, ' ').trim();
  return cleaned.length > 300 ? `${cleaned.slice(0, 299)}…` : cleaned;
}

function bodyOf(res: PlatformResponse): KieBody {
  return typeof res.body === 'object' && res.body !== null && !Array.isArray(res.body) ? res.body : {};
}

/** Classifies a KIE answer; undefined when it succeeded (`code` 200). */
export function kieFailure(res: PlatformResponse, op: KieOperation, now = Date.now()): KieFailure | undefined {
  const body = bodyOf(res);
  const bodyCode = typeof body.code === 'number' ? body.code : undefined;
  if (res.status < 300 && bodyCode === 200) return undefined;
  // A 2xx without KIE's envelope (a proxy's page, a truncated answer) is treated as a server error.
  const code = bodyCode !== undefined && bodyCode !== 200 ? bodyCode : res.status < 300 ? 500 : res.status;
  const text = typeof res.body === 'string' ? res.body : '';
  const message = kieMessage((typeof body.msg === 'string' && body.msg) || text.slice(0, 300) || `KIE.ai error ${code}`);
  const after = retryAfterSeconds(res.headers, now);
  const retryAfterMs = after === undefined ? undefined : after * 1000;

  if (code === 401 || code === 403) return { kind: 'unavailable', code, message };
  if (code === 402) return { kind: 'unavailable', code, message };
  if (code === 505) return { kind: 'unavailable', code, message };
  if (code === 429 || code === 455 || (code >= 500 && code !== 501 && code !== 505)) return { kind: 'retry', code, message, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  // A refused submission names what was wrong with the request; on a poll the same codes are
  // the task's failure (the prompt was flagged, the record is gone).
  if ((code === 400 || code === 422) && op === 'submit') return { kind: 'invalid_params', code, message };
  return { kind: 'failed', code, message };
}

/** The user-facing error of a final failure. */
export function providerError(f: KieFailure, op: KieOperation): VideoProviderError {
  if (f.code === 401 || f.code === 403) {
    return new VideoProviderError(`Veo 3 is unavailable: KIE.ai refused the API key configured for it (check KIE_API_KEY): ${f.message}`, 'unavailable');
  }
  if (f.code === 402) return new VideoProviderError(`Veo 3 is unavailable: the KIE.ai account has too few credits (${f.message})`, 'unavailable');
  if (f.code === 505) return new VideoProviderError(`Veo 3 is unavailable: KIE.ai has turned this feature off (${f.message})`, 'unavailable');
  if (f.kind === 'invalid_params') return new VideoProviderError(`KIE.ai refused the Veo 3 request: ${f.message}`, 'invalid_params');
  const what = op === 'submit' ? 'KIE.ai did not take the Veo 3 task' : op === 'poll' ? 'KIE.ai could not report on the Veo 3 task' : 'KIE.ai did not give its credit balance';
  return new VideoProviderError(`${what}: ${f.message} (code ${f.code})`, 'failed');
}
