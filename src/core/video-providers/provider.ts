import type { z } from 'zod';
import type { PlatformHttp } from '../../platforms/platform.js';

/**
 * The video provider contract (issue 19), shaped like the platform adapter contract: metadata as
 * data, operations with an explicit context. A provider never touches the database, the queue,
 * `process.env` or Fastify; the video service (`modules/video/`) checks requests against the
 * metadata, reserves credits, queues the job, and the video worker (`video/video-worker.ts`) calls
 * `generate` with a context and stores what it returns as a media item of the organisation.
 */

/** The two output formats of `POST /generate-video`. */
export const VIDEO_FORMATS = {
  vertical: { width: 1080, height: 1920 },
  horizontal: { width: 1920, height: 1080 },
} as const;

export type VideoOutput = keyof typeof VIDEO_FORMATS;
export const VIDEO_OUTPUTS = Object.keys(VIDEO_FORMATS) as VideoOutput[];

/** A media item of the organisation that `customParams` names, with the kinds it may be. */
export interface MediaReference {
  /** the dotted path of the field inside `customParams` (`slides.2.image.id`), for errors */
  field: string;
  id: string;
  accept: readonly ('image' | 'video' | 'audio')[];
}

/** A named function a provider exposes through `POST /video/function`. */
export interface VideoFunctionDefinition {
  description: string;
  /** parsed before `callFunction` runs; an invalid value is a 400 naming `params.<field>` */
  params: z.ZodType;
}

export interface VideoProviderMetadata {
  /** the `type` of `POST /generate-video` and the `identifier` of `POST /video/function` */
  identifier: string;
  name: string;
  description: string;
  /** where the work runs: in the worker process, or at an outside service the worker waits on */
  runsOn: 'local' | 'remote';
  outputs: readonly VideoOutput[];
  /** plan credits one generation costs */
  creditCost: number;
  /** the `customParams` of `POST /generate-video` (published as JSON Schema by `GET /video/providers`) */
  customParams: z.ZodType;
  /** the media items parsed `customParams` refer to: each must be the organisation's, of an accepted kind */
  mediaReferences(params: unknown): MediaReference[];
  functions: Record<string, VideoFunctionDefinition>;
}

/** A media item a provider may read: a copy of its bytes in the job's work directory. */
export interface VideoMediaFile {
  id: string;
  type: 'image' | 'video' | 'audio';
  mimeType: string;
  /** an absolute path inside `workDir` */
  path: string;
  /** the item's public URL (what remote providers fetch) */
  url: string;
  width: number | null;
  height: number | null;
}

/** What the service hands `callFunction` (no job: a request of the organisation). */
export interface VideoFunctionContext {
  organizationId: string;
  /** a fresh directory, removed after the call */
  workDir: string;
  signal: AbortSignal;
  /** copies a media item of the organisation into `workDir` (the service checked it is theirs) */
  media(id: string): Promise<VideoMediaFile>;
  http: PlatformHttp;
}

export interface VideoGenerateContext extends VideoFunctionContext {
  jobId: string;
  /** 1 on the first attempt, 2 on the retry after a crash */
  attempt: number;
  output: VideoOutput;
  format: { width: number; height: number };
  /** reports progress (0–1) and the current stage; written to the job row now and then */
  progress(fraction: number, stage?: string): void;
  /**
   * What an earlier attempt of this job saved with `checkpoint` (a remote task id): a retry resumes
   * waiting for the remote task instead of submitting (and paying for) a second one.
   */
  saved: Record<string, unknown> | null;
  checkpoint(state: Record<string, unknown>): Promise<void>;
}

/** A finished video: a file in `workDir`, or a URL the service downloads (SSRF-guarded) into storage. */
export type VideoResult = { kind: 'file'; path: string; filename: string } | { kind: 'url'; url: string; filename: string };

/** A refusal or failure a provider reports in words for the user; `retryable` = may work on a retry. */
export class VideoProviderError extends Error {
  override name = 'VideoProviderError';
  constructor(
    message: string,
    readonly kind: 'invalid_params' | 'failed' | 'unavailable' = 'failed',
    /** for `invalid_params`: the field inside customParams / params */
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface VideoProvider {
  readonly metadata: VideoProviderMetadata;
  /** Makes the video. Must honour `ctx.signal` (time limit, shutdown): stop work and throw. */
  generate(ctx: VideoGenerateContext, params: unknown): Promise<VideoResult>;
  /** Runs a named function of `metadata.functions` with parsed params; the answer is JSON. */
  callFunction(name: string, ctx: VideoFunctionContext, params: unknown): Promise<unknown>;
}
