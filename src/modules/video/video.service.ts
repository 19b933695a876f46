import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AppError, fieldError, notFound, validationError, type FieldError } from '../../errors.js';
import { PAGE_SIZE, pageInfo } from '../../lib/pagination.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import type { PlatformHttpClient } from '../../platforms/http.js';
import { withSignal } from '../../platforms/http.js';
import type { MediaRepository, MediaRow } from '../media/media.repository.js';
import { toMediaItem } from '../media/media.service.js';
import type { MediaItem } from '../media/media.schemas.js';
import type { PlansRepository } from '../plans/plans.repository.js';
import { VIDEO_FORMATS, VideoProviderError, type VideoFunctionContext, type VideoOutput, type VideoProvider } from '../../core/video-providers/provider.js';
import { copyMediaInto } from '../../core/video-providers/media-files.js';
import type { MediaStorage } from '../../core/media/storage.js';
import type { VideoQueue } from '../../core/queues.js';
import type { VideoRepository, VideoJobRow } from './video.repository.js';
import type { GenerateVideoBody, VideoCredits, VideoFunctionBody, VideoJob } from './video.schemas.js';

/** The UTC month credits count against: `YYYY-MM`. */
export function creditPeriod(at: number): string {
  return new Date(at).toISOString().slice(0, 7);
}

function nextPeriodStart(at: number): Date {
  const d = new Date(at);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
}

const TERMINAL = new Set(['succeeded', 'failed']);

/** zod issues as fields under `prefix` (`customParams.slides.0.text`). */
function issuesAt(prefix: string, error: z.ZodError): FieldError[] {
  return error.issues.map((i) => ({ path: [prefix, ...i.path.map(String)].join('.'), message: i.message }));
}

function providerErrorAsApp(err: unknown, prefix: string): unknown {
  if (err instanceof VideoProviderError) {
    if (err.kind === 'invalid_params') return fieldError(err.field ? `${prefix}.${err.field}` : prefix, err.message);
    if (err.kind === 'unavailable') return new AppError('VIDEO_PROVIDER_NOT_AVAILABLE', err.message);
    return new AppError('VIDEO_GENERATION_FAILED', err.message);
  }
  return err;
}

/**
 * Video generation (issue 19): what the routes and other front doors call. Checks a request against
 * the provider's metadata and the organisation's media, reserves the credits and queues the job in
 * one transaction; waits a while for the worker so quick videos answer like the reference (201 with
 * the media item); reads jobs and credits; runs providers' named functions.
 */
export function createVideoService(deps: {
  video: VideoRepository;
  media: MediaRepository;
  storage: MediaStorage;
  plans: PlansRepository;
  providers: ReadonlyMap<string, VideoProvider>;
  /** absent in processes without the job engine (admin commands) */
  queue: VideoQueue | undefined;
  http: PlatformHttpClient;
  clock: Clock;
  /** where function calls get their scratch directories */
  workRoot: string;
  options: { requestWaitMs: number; pollMs?: number };
}) {
  const { video, clock } = deps;

  function provider(identifier: string, field: string): VideoProvider {
    const p = deps.providers.get(identifier);
    if (p) return p;
    const offered = [...deps.providers.keys()];
    throw new AppError(
      'VIDEO_PROVIDER_NOT_AVAILABLE',
      offered.length === 0
        ? `${field}: no video provider is available in this deployment (the built-in one is turned off: VIDEO_LOCAL_PROVIDER=off, and no outside provider is configured)`
        : `${field}: the video provider "${identifier}" is not available in this deployment; available: ${offered.join(', ')}`,
    );
  }

  async function jobOut(row: VideoJobRow, mediaRow?: MediaRow): Promise<VideoJob> {
    const m = mediaRow ?? (row.mediaId ? await deps.media.findMedia(row.organizationId, row.mediaId) : undefined);
    return {
      id: row.id,
      type: row.provider,
      output: row.output,
      status: row.status as VideoJob['status'],
      progress: row.progress,
      stage: row.stage,
      attempts: row.attempts,
      credits: row.credits,
      creditState: row.creditState as VideoJob['creditState'],
      error: row.error,
      media: m ? toMediaItem(m) : null,
      createdAt: row.createdAt.toISOString(),
      startedAt: row.startedAt?.toISOString() ?? null,
      finishedAt: row.finishedAt?.toISOString() ?? null,
    };
  }

  async function credits(organizationId: string): Promise<VideoCredits> {
    const now = clock.now();
    const period = creditPeriod(now);
    const plan = await deps.plans.findPlanOfOrganization(organizationId);
    if (!plan) throw notFound('Organization');
    const [charged, reserved, granted] = await Promise.all([
      video.creditsCharged(organizationId, period),
      video.creditsReserved(organizationId, period),
      video.creditsGranted(organizationId, period),
    ]);
    const allowance = plan.videoCreditsPerMonth;
    return {
      period,
      plan: plan.name,
      allowance,
      granted,
      used: charged - reserved,
      reserved,
      remaining: allowance === null ? null : Math.max(0, allowance + granted - charged),
      resetsAt: nextPeriodStart(now).toISOString(),
    };
  }

  /** Copies of the organisation's media items for a function call or a job (never another organisation's). */
  function mediaAccess(organizationId: string, workDir: string) {
    return async (id: string) => {
      const row = isUuid(id) ? await deps.media.findMedia(organizationId, id) : undefined;
      if (!row) throw new VideoProviderError(`no media item ${id} in this organisation`, 'invalid_params');
      return copyMediaInto(deps.storage, row, workDir);
    };
  }

  /** Checks `customParams` against the provider and the organisation's media; answers the parsed params. */
  async function checkParams(organizationId: string, p: VideoProvider, customParams: unknown, prefix: string) {
    const parsed = p.metadata.customParams.safeParse(customParams);
    if (!parsed.success) throw validationError(issuesAt(prefix, parsed.error));
    const refs = p.metadata.mediaReferences(parsed.data);
    const problems: FieldError[] = [];
    for (const ref of refs) {
      const row = isUuid(ref.id) ? await deps.media.findMedia(organizationId, ref.id) : undefined;
      if (!row) problems.push({ path: `${prefix}.${ref.field}`, message: `no media item ${ref.id} in this organisation` });
      else if (!ref.accept.includes(row.type)) problems.push({ path: `${prefix}.${ref.field}`, message: `media item ${ref.id} is a ${row.type}; this field takes ${ref.accept.join(' or ')}` });
    }
    if (problems.length) throw validationError(problems);
    return parsed.data;
  }

  async function waitForJob(id: string, waitMs: number, signal?: AbortSignal): Promise<VideoJobRow | undefined> {
    const deadline = Date.now() + waitMs;
    const pollMs = deps.options.pollMs ?? 250;
    for (;;) {
      const row = await video.findJobById(id);
      if (!row || TERMINAL.has(row.status)) return row;
      const left = deadline - Date.now();
      if (left <= 0 || signal?.aborted) return row;
      await new Promise((r) => setTimeout(r, Math.min(pollMs, left)));
    }
  }

  return {
    /** What this deployment offers (`GET /video/providers`). */
    listProviders() {
      return {
        providers: [...deps.providers.values()].map(({ metadata: m }) => ({
          identifier: m.identifier,
          name: m.name,
          description: m.description,
          runsOn: m.runsOn,
          outputs: m.outputs.map((o) => ({ output: o, ...VIDEO_FORMATS[o] })),
          creditCost: m.creditCost,
          customParams: z.toJSONSchema(m.customParams, { io: 'input', unrepresentable: 'any' }),
          functions: Object.entries(m.functions).map(([name, f]) => ({
            name,
            description: f.description,
            params: z.toJSONSchema(f.params, { io: 'input', unrepresentable: 'any' }),
          })),
        })),
      };
    },

    /**
     * `POST /generate-video`: checks, reserves the credits and queues the job in one transaction,
     * then waits up to the configured time (none with `respondAsync`) for the worker. Finished → the
     * media item; failed → 422 with the reason (credits refunded); still going → the job (202).
     */
    async generate(organizationId: string, body: GenerateVideoBody, opts: { respondAsync?: boolean; signal?: AbortSignal } = {}): Promise<{ status: 201; media: MediaItem; jobId: string } | { status: 202; job: VideoJob }> {
      const p = provider(body.type, 'type');
      const output = body.output as VideoOutput;
      if (!p.metadata.outputs.includes(output)) throw fieldError('output', `the provider "${p.metadata.identifier}" makes ${p.metadata.outputs.join(' and ')} videos`);
      const params = await checkParams(organizationId, p, body.customParams, 'customParams');
      const queue = deps.queue;
      if (!queue) throw new AppError('SERVICE_UNAVAILABLE', 'the job engine is not running in this process');
      const now = clock.now();
      const period = creditPeriod(now);
      const cost = p.metadata.creditCost;
      const job = await video.transaction(async (tx) => {
        await video.lockOrganization(tx, organizationId);
        const plan = await deps.plans.findPlanOfOrganization(organizationId, tx);
        if (!plan) throw notFound('Organization');
        const allowance = plan.videoCreditsPerMonth;
        if (allowance !== null) {
          const charged = await video.creditsCharged(organizationId, period, tx);
          const granted = await video.creditsGranted(organizationId, period, tx);
          const left = allowance + granted - charged;
          if (left < cost) {
            throw new AppError(
              'PLAN_LIMIT_REACHED',
              `Plan limit reached: videoCredits — the "${plan.name}" plan allows ${allowance} video credits per month${granted ? ` (+${granted} granted)` : ''}, ${charged} are used or reserved in ${period}, and "${p.metadata.identifier}" costs ${cost}; credits renew on ${nextPeriodStart(now).toISOString().slice(0, 10)}`,
            );
          }
        }
        const row = await video.insertJob(tx, {
          organizationId,
          provider: p.metadata.identifier,
          output,
          params: params,
          credits: cost,
          creditPeriod: period,
          createdAt: new Date(now),
          updatedAt: new Date(now),
        });
        await queue.enqueue(tx, row.id);
        return row;
      });
      queue.wake();
      const waited = opts.respondAsync ? job : ((await waitForJob(job.id, deps.options.requestWaitMs, opts.signal)) ?? job);
      if (waited.status === 'succeeded' && waited.mediaId) {
        const m = await deps.media.findMedia(organizationId, waited.mediaId);
        if (m) return { status: 201, media: toMediaItem(m), jobId: job.id };
      }
      if (waited.status === 'failed') throw new AppError('VIDEO_GENERATION_FAILED', `The video could not be made (job ${job.id}; its credits were refunded): ${waited.error ?? 'unknown error'}`);
      return { status: 202, job: await jobOut(waited) };
    },

    async getJob(organizationId: string, id: string): Promise<VideoJob> {
      const row = isUuid(id) ? await video.findJob(organizationId, id) : undefined;
      if (!row) throw notFound('Video job');
      return jobOut(row);
    },

    async listJobs(organizationId: string, page: number) {
      const { rows, total } = await video.listPage(organizationId, page * PAGE_SIZE, PAGE_SIZE);
      return { jobs: await Promise.all(rows.map((r) => jobOut(r))), ...pageInfo(total, page) };
    },

    credits: (organizationId: string) => credits(organizationId),

    /** `POST /video/function`: a named function of a provider, with its params checked. */
    async callFunction(organizationId: string, body: VideoFunctionBody, signal?: AbortSignal): Promise<unknown> {
      const p = provider(body.identifier, 'identifier');
      const def = Object.hasOwn(p.metadata.functions, body.functionName) ? p.metadata.functions[body.functionName] : undefined;
      if (!def) {
        const names = Object.keys(p.metadata.functions);
        throw fieldError('functionName', `Function ${body.functionName} not found on video provider "${p.metadata.identifier}"${names.length ? `; it has: ${names.join(', ')}` : ''}`);
      }
      const parsed = def.params.safeParse(body.params ?? {});
      if (!parsed.success) throw validationError(issuesAt('params', parsed.error));
      const workDir = join(deps.workRoot, `fn-${randomUUID()}`);
      await mkdir(workDir, { recursive: true });
      const ac = new AbortController();
      const onAbort = () => ac.abort(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      const ctx: VideoFunctionContext = {
        organizationId,
        workDir,
        signal: ac.signal,
        media: mediaAccess(organizationId, workDir),
        http: withSignal(deps.http, ac.signal),
      };
      try {
        return await p.callFunction(body.functionName, ctx, parsed.data);
      } catch (e) {
        throw providerErrorAsApp(e, 'params');
      } finally {
        signal?.removeEventListener('abort', onAbort);
        await rm(workDir, { recursive: true, force: true });
      }
    },

    // ── the admin CLI ────────────────────────────────────────────────────────────────────────
    /** Extra credits for the current month (negative to take some back). */
    async grantCredits(organizationId: string, amount: number, note: string | undefined) {
      await video.grantCredits({ organizationId, period: creditPeriod(clock.now()), credits: amount, note: note ?? null, createdAt: new Date(clock.now()) });
      return credits(organizationId);
    },
  };
}

export type VideoService = ReturnType<typeof createVideoService>;
