import { z } from 'zod';
import type { Clock } from '../../../lib/clock.js';
import { systemClock } from '../../../lib/clock.js';
import { PlatformError, type PlatformHttp, type PlatformRequest } from '../../../platforms/platform.js';
import {
  VideoProviderError,
  type MediaReference,
  type VideoFunctionContext,
  type VideoGenerateContext,
  type VideoOutput,
  type VideoProvider,
  type VideoResult,
} from '../provider.js';
import { kieFailure, providerError, type KieBody, type KieFailure, type KieOperation } from './errors.js';

/**
 * Veo 3 through KIE.ai (issue 19, an outside provider behind the video contract). The identifier
 * `veo3` is the reference service's `type` for this provider.
 *
 * What KIE.ai documents (docs.kie.ai "Veo3.1 API": generate, get video details; "Common API":
 * get account credits), base `https://api.kie.ai`, every call with `Authorization: Bearer <key>`:
 *   - `POST /api/v1/veo/generate` JSON `{ prompt (required), imageUrls?: string[], model?: 'veo3' |
 *     'veo3_fast' (default veo3_fast), generationType?: 'TEXT_2_VIDEO' |
 *     'FIRST_AND_LAST_FRAMES_2_VIDEO' (1–2 pictures: one to animate, or first and last frame) |
 *     'REFERENCE_2_VIDEO' (1–3 material pictures, veo3_fast only), aspect ratio '16:9' | '9:16' |
 *     'Auto', callBackUrl?, seeds?, watermark?, enableTranslation? }` → `{ code: 200, msg, data:
 *     { taskId } }`. No callBackUrl is sent: the worker polls, so nothing has to reach us.
 *   - `GET /api/v1/veo/record-info?taskId=` → `data: { taskId, successFlag: 0 generating | 1
 *     success | 2 failed | 3 generation failed, response: { resultUrls: string[], originUrls,
 *     resolution }, errorCode, errorMessage, createTime, completeTime }`.
 *   - `GET /api/v1/chat/credit` → `{ code: 200, msg, data: <remaining credits, a number> }`.
 *   - Failures as `{ code, msg }`, often under HTTP 200 (see `errors.ts`).
 *
 * Assumed, or chosen where the documentation disagrees with itself:
 *   - The aspect ratio field: the current reference names it `aspect_ratio`, earlier versions of
 *     the same page (and most clients) `aspectRatio`. Both are sent, with the same value, so
 *     whichever the server reads gets the output format asked for.
 *   - `generationType` is sent explicitly from the number of pictures (none: text; 1–2: first/last
 *     frames; 3: reference, which only veo3_fast takes — refused up front for veo3) rather than
 *     left to KIE's guess.
 *   - A task may report `successFlag` 1 before its URL is filled in (others' clients note a second
 *     upscaling pass): that is treated as still generating.
 *   - `resultUrls` is read as an array, or as a JSON-encoded array (older answers and callbacks).
 *   - KIE has no idempotency key and no way to list tasks: a submission whose answer was lost
 *     is not sent again (it may have created, and charged, a task); it fails, naming that.
 *   - Result URLs are temporary (KIE keeps files for days, download links live for minutes): the
 *     result must be downloaded as soon as `generate` returns it.
 */

export const KIE_API = 'https://api.kie.ai';

export const VEO3_MODELS = ['veo3', 'veo3_fast'] as const;
export type Veo3Model = (typeof VEO3_MODELS)[number];

const MAX_IMAGES = 3;

export const Veo3ParamsSchema = z
  .object({
    prompt: z.string().trim().min(1).max(2000).describe('What the video shows: scene, action, camera, style, sound (at most 2000 characters)'),
    images: z
      .array(
        z
          .object({
            id: z.uuid().describe('A picture of the media library'),
            path: z.string().optional().describe("The picture's URL as the media library gave it (ignored: the item's own URL is sent)"),
          })
          .strict(),
      )
      .max(MAX_IMAGES)
      .optional()
      .describe('Up to 3 pictures: one is animated, two are the first and last frame, three are reference material (veo3_fast only)'),
    model: z.enum(VEO3_MODELS).default('veo3_fast').describe('veo3: Veo 3 Quality; veo3_fast: Veo 3 Fast (cheaper, quicker; the default)'),
  })
  .strict()
  .superRefine((p, ctx) => {
    if ((p.images?.length ?? 0) === MAX_IMAGES && p.model !== 'veo3_fast') {
      ctx.addIssue({ code: 'custom', path: ['images'], message: 'Three pictures are reference material, which only the veo3_fast model takes: choose veo3_fast or at most 2 pictures' });
    }
  })
  .describe('A video made by Google Veo 3 at KIE.ai from a prompt and optional pictures');

export type Veo3Params = z.output<typeof Veo3ParamsSchema>;

export const CreditsParamsSchema = z.object({}).strict();

export interface Veo3ProviderOptions {
  /** the KIE.ai API key */
  apiKey: string;
  /** between two status reads of a task (default 10 s) */
  pollIntervalMs?: number;
  /** how long this attempt waits for the task before the generation fails (default 20 minutes) */
  maxWaitMs?: number;
  /** plan credits one generation costs (default 1) */
  creditCost?: number;
  /** retries of one request answered 429, 455, 5xx or lost on the network (default 4) */
  maxRetries?: number;
  /** the first retry's wait, doubled each time (default 2 s; a longer Retry-After wins, up to a minute) */
  retryDelayMs?: number;
  clock?: Clock;
  /** waits `ms` or until `signal` aborts (then rejects); injectable for tests */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const MAX_RETRY_WAIT_MS = 60_000;

/** The reason an aborted signal gives, as an Error to throw. */
function abortReason(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new DOMException('The operation was aborted', 'AbortError');
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** `resultUrls` as KIE gives it: an array, or a JSON-encoded array. */
function resultUrlsOf(response: unknown): string[] {
  if (!response || typeof response !== 'object') return [];
  let urls: unknown = (response as { resultUrls?: unknown }).resultUrls;
  if (typeof urls === 'string') {
    try {
      urls = JSON.parse(urls) as unknown;
    } catch {
      urls = [urls];
    }
  }
  return Array.isArray(urls) ? urls.filter((u): u is string => typeof u === 'string' && /^https?:\/\//.test(u)) : [];
}

function generationTypeOf(images: number): string {
  if (images === 0) return 'TEXT_2_VIDEO';
  return images <= 2 ? 'FIRST_AND_LAST_FRAMES_2_VIDEO' : 'REFERENCE_2_VIDEO';
}

const ASPECT: Record<VideoOutput, string> = { vertical: '9:16', horizontal: '16:9' };

export function createVeo3Provider(opts: Veo3ProviderOptions): VideoProvider {
  const pollIntervalMs = opts.pollIntervalMs ?? 10_000;
  const maxWaitMs = opts.maxWaitMs ?? 20 * 60_000;
  const maxRetries = opts.maxRetries ?? 4;
  const retryDelayMs = opts.retryDelayMs ?? 2_000;
  const clock = opts.clock ?? systemClock;
  const sleep = opts.sleep ?? abortableSleep;
  const auth = { authorization: `Bearer ${opts.apiKey}` };

  /**
   * One KIE call: answers `data` of a `code` 200 answer; retries what may work later (bounded,
   * with backoff); throws the user-facing error of anything else. A submission whose answer was
   * lost is never sent again: it may have created a task.
   */
  async function call(http: PlatformHttp, signal: AbortSignal, req: PlatformRequest, op: KieOperation): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) throw abortReason(signal);
      let failure: KieFailure | undefined;
      try {
        const res = await http.request(req);
        failure = kieFailure(res, op, clock.now());
        if (!failure) return (res.body as KieBody).data;
      } catch (err) {
        if (signal.aborted) throw abortReason(signal);
        if (!(err instanceof PlatformError)) throw err;
        if (op === 'submit' && err.details.outcomeUnknown) {
          throw new VideoProviderError(
            `The answer to the Veo 3 submission was lost (${err.message}): KIE.ai may have started, and charged, a task; it is not sent again (see kie.ai/logs)`,
            'failed',
          );
        }
        failure = { kind: 'retry', code: 0, message: err.message };
      }
      if (failure.kind !== 'retry') throw providerError(failure, op);
      if (attempt > maxRetries) {
        const what = failure.code === 0 ? failure.message : `${failure.message} (code ${failure.code})`;
        throw new VideoProviderError(`KIE.ai kept failing (${attempt} attempts) ${op === 'submit' ? 'to take the Veo 3 task' : op === 'poll' ? 'to report on the Veo 3 task' : 'to give its credit balance'}: ${what}`, 'failed');
      }
      const backoff = retryDelayMs * 2 ** (attempt - 1);
      await sleep(Math.min(Math.max(backoff, failure.retryAfterMs ?? 0), MAX_RETRY_WAIT_MS), signal);
    }
  }

  function parseParams(params: unknown): Veo3Params {
    const parsed = Veo3ParamsSchema.safeParse(params);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.');
    throw new VideoProviderError(`${field || 'customParams'}: ${issue.message}`, 'invalid_params', field || undefined);
  }

  async function submit(ctx: VideoGenerateContext, p: Veo3Params): Promise<string> {
    const imageUrls: string[] = [];
    for (const image of p.images ?? []) imageUrls.push((await ctx.media(image.id)).url);
    const aspect = ASPECT[ctx.output];
    const data = await call(
      ctx.http,
      ctx.signal,
      {
        method: 'POST',
        url: `${KIE_API}/api/v1/veo/generate`,
        headers: auth,
        body: {
          prompt: p.prompt,
          model: p.model,
          generationType: generationTypeOf(imageUrls.length),
          ...(imageUrls.length > 0 ? { imageUrls } : {}),
          aspect_ratio: aspect,
          aspectRatio: aspect,
        },
      },
      'submit',
    );
    const taskId = (data as { taskId?: unknown } | null)?.taskId;
    if (typeof taskId !== 'string' || taskId === '') {
      throw new VideoProviderError('KIE.ai accepted the Veo 3 task but gave no task id', 'failed');
    }
    return taskId;
  }

  /** Polls the task until it has a video, fails, runs out of time, or the signal aborts. */
  async function waitFor(ctx: VideoGenerateContext, taskId: string): Promise<string> {
    const started = clock.now();
    for (let polls = 0; ; polls++) {
      const data = await call(ctx.http, ctx.signal, { method: 'GET', url: `${KIE_API}/api/v1/veo/record-info?taskId=${encodeURIComponent(taskId)}`, headers: auth }, 'poll');
      const d = (data ?? {}) as { successFlag?: unknown; response?: unknown; errorCode?: unknown; errorMessage?: unknown };
      if (d.successFlag === 2 || d.successFlag === 3) {
        const why = typeof d.errorMessage === 'string' && d.errorMessage.trim() !== '' ? d.errorMessage.trim() : 'no reason given';
        const code = typeof d.errorCode === 'number' ? ` (code ${d.errorCode})` : '';
        throw new VideoProviderError(`Veo 3 (KIE.ai) could not make the video: ${why}${code}`, 'failed');
      }
      const url = d.successFlag === 1 ? resultUrlsOf(d.response)[0] : undefined;
      if (url) return url;
      // KIE gives no percentage: step towards 0.9, never reaching it, while the task runs.
      ctx.progress(0.9 - 0.85 * 0.9 ** (polls + 1), 'generating at KIE.ai');
      if (clock.now() - started >= maxWaitMs) {
        throw new VideoProviderError(`Veo 3 task ${taskId} was not finished at KIE.ai after ${Math.round(maxWaitMs / 60_000)} minutes`, 'failed');
      }
      await sleep(pollIntervalMs, ctx.signal);
    }
  }

  return {
    metadata: {
      identifier: 'veo3',
      name: 'Veo 3 (KIE.ai)',
      description: "A short video with sound made by Google's Veo 3 at KIE.ai from a prompt and up to 3 pictures",
      runsOn: 'remote',
      outputs: ['vertical', 'horizontal'],
      creditCost: opts.creditCost ?? 1,
      customParams: Veo3ParamsSchema,
      mediaReferences(params: unknown): MediaReference[] {
        const images = (params as Partial<Veo3Params> | null)?.images ?? [];
        return images.map((image, i) => ({ field: `images.${i}.id`, id: image.id, accept: ['image'] as const }));
      },
      functions: {
        credits: { description: 'The credits left on the KIE.ai account this deployment uses', params: CreditsParamsSchema },
      },
    },

    async generate(ctx: VideoGenerateContext, params: unknown): Promise<VideoResult> {
      const p = parseParams(params);
      const saved = ctx.saved?.taskId;
      let taskId: string;
      if (typeof saved === 'string' && saved !== '') {
        // An earlier attempt submitted (and paid for) this task: wait for it instead of a second one.
        taskId = saved;
        ctx.progress(0.05, 'resuming the KIE.ai task');
      } else {
        ctx.progress(0.01, 'submitting to KIE.ai');
        taskId = await submit(ctx, p);
        await ctx.checkpoint({ taskId });
        ctx.progress(0.05, 'queued at KIE.ai');
      }
      const url = await waitFor(ctx, taskId);
      ctx.progress(0.9, 'generated at KIE.ai');
      return { kind: 'url', url, filename: `veo3-${taskId.replace(/[^A-Za-z0-9_-]/g, '_')}.mp4` };
    },

    async callFunction(name: string, ctx: VideoFunctionContext, params: unknown): Promise<unknown> {
      if (name !== 'credits') throw new VideoProviderError(`Veo 3 has no function named ${name}`, 'invalid_params');
      const parsed = CreditsParamsSchema.safeParse(params ?? {});
      if (!parsed.success) throw new VideoProviderError(`credits takes no parameters: ${parsed.error.issues[0]!.message}`, 'invalid_params', parsed.error.issues[0]!.path.join('.') || undefined);
      const data = await call(ctx.http, ctx.signal, { method: 'GET', url: `${KIE_API}/api/v1/chat/credit`, headers: auth }, 'credits');
      const credits = typeof data === 'number' ? data : typeof data === 'string' && data.trim() !== '' ? Number(data) : NaN;
      if (!Number.isFinite(credits)) throw new VideoProviderError('KIE.ai answered its credit balance without a number', 'failed');
      return { credits };
    },
  };
}
