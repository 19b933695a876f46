import type { VideoService } from '../../modules/video/video.service.js';
import {
  GenerateVideoBodySchema,
  VideoCreditsSchema,
  VideoFunctionBodySchema,
  VideoFunctionResultSchema,
  VideoJobPageSchema,
  VideoJobParamsSchema,
  VideoJobSchema,
  VideoProvidersSchema,
  type VideoJob,
} from '../../modules/video/video.schemas.js';
import { PageQuerySchema } from '../../lib/pagination.js';
import { defineTool } from '../tool.js';

const JOB_ID = 'the video job id (from generate_video or list_video_jobs)';
const PROVIDER = 'a provider identifier from list_video_providers (`slides` is built in)';

function describeJob(j: VideoJob): string {
  const state = j.status === 'succeeded' ? `done${j.media ? `: media ${j.media.id} at ${j.media.path}` : ' (its media item was deleted since)'}` : j.status === 'failed' ? `failed: ${j.error ?? 'unknown error'}` : `${j.status}, ${Math.round(j.progress * 100)}%${j.stage ? ` (${j.stage})` : ''}`;
  return `Video job ${j.id} (${j.type}, ${j.output}): ${state}`;
}

/** Video generation: the tools of `modules/video/video.routes.ts`, on the same service methods. */
export function videoTools(video: VideoService) {
  return [
    defineTool({
      name: 'list_video_providers',
      title: 'List the video providers',
      route: 'GET /video/providers',
      description:
        'The video makers of this deployment: for each its `identifier` (the `type` of generate_video), the formats it makes (`vertical` 1080×1920, `horizontal` 1920×1080), the plan credits one video costs, the JSON Schema of the `customParams` generate_video takes, and its functions (call_video_function) with the JSON Schema of their params. An empty list: video generation is off here.',
      input: {},
      output: VideoProvidersSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: async () => video.listProviders(),
      summary: (r) => `${r.providers.length} provider(s): ${r.providers.map((p) => `${p.identifier} (${p.outputs.map((o) => o.output).join('/')}, ${p.creditCost} credit(s); functions: ${p.functions.map((f) => f.name).join(', ') || 'none'})`).join('; ') || 'none: video generation is off'}`,
    }),
    defineTool({
      name: 'generate_video',
      title: 'Generate a video',
      route: 'POST /generate-video',
      description:
        "Starts making a video with a provider (`type` from list_video_providers) in a format (`output`), with the provider's `customParams` (pictures and music are media ids from upload_media_from_url or list_media). " +
        "It reserves the provider's credit cost from the plan's monthly video credits (get_video_credits) and answers the job at once, without waiting for the video: call get_video_job with its id every few seconds until `status` is `succeeded` (its `media` is then the video, whose id create_posts takes) or `failed` (`error` says why; the credits are refunded).",
      input: { body: GenerateVideoBodySchema },
      hints: { type: PROVIDER, customParams: "the provider's parameters, as its customParams JSON Schema in list_video_providers describes" },
      output: VideoJobSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      async run(ctx, { body }) {
        // The route waits up to VIDEO_REQUEST_WAIT_SECONDS; an assistant should not be held that long.
        const r = await video.generate(ctx.organizationId, body, { respondAsync: true, signal: ctx.signal });
        return r.status === 202 ? r.job : video.getJob(ctx.organizationId, r.jobId);
      },
      summary: (j) => `${describeJob(j)}; ${j.status === 'succeeded' || j.status === 'failed' ? '' : 'poll get_video_job with this id until it succeeds or fails; '}${j.credits} credit(s) ${j.creditState}`,
    }),
    defineTool({
      name: 'call_video_function',
      title: 'Call a function of a video provider',
      route: 'POST /video/function',
      description:
        'Runs a named function of a video provider (the functions and the JSON Schema of their `params` are in list_video_providers), e.g. for `slides`: listTemplates, listFonts, and preview (a PNG of the first slide as base64 `data`). Answers what the function gives, under `result`.',
      input: { body: VideoFunctionBodySchema },
      hints: { identifier: PROVIDER, functionName: 'a function name the provider lists in list_video_providers' },
      output: VideoFunctionResultSchema,
      outputKey: 'result',
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
      run: (ctx, { body }) => video.callFunction(ctx.organizationId, body, ctx.signal),
      summary: (r) => {
        const text = JSON.stringify(r) ?? 'nothing';
        return `The function answered: ${text.length > 500 ? `${text.slice(0, 500)}…` : text}`;
      },
    }),
    defineTool({
      name: 'list_video_jobs',
      title: 'List video generations',
      route: 'GET /video/jobs',
      description:
        "The organisation's video generations, newest first, 100 per page (`page` from 0): status (queued, running, succeeded, failed), progress 0 to 1, credits and whether they are reserved, spent or refunded, the error of a failed one, the media item of a finished one, and when it was created, started and finished (ISO 8601, UTC).",
      input: { query: PageQuerySchema },
      output: VideoJobPageSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { query }) => video.listJobs(ctx.organizationId, query.page),
      summary: (p) => `${p.jobs.length} of ${p.total} video job(s) on page ${p.page}${p.hasMore ? ' (more on the next page)' : ''}: ${p.jobs.map(describeJob).join('; ') || 'none'}`,
    }),
    defineTool({
      name: 'get_video_job',
      title: 'Get a video generation',
      route: 'GET /video/jobs/:id',
      description:
        'One video generation: `status` (queued, running, succeeded, failed), `progress` 0 to 1 and its `stage`, the `error` of a failed one (its credits refunded), and once succeeded the `media` item (its id is what create_posts takes). Dates are ISO 8601, UTC. Poll it after generate_video until it succeeds or fails.',
      input: { params: VideoJobParamsSchema },
      rename: { 'params.id': 'jobId' },
      hints: { jobId: JOB_ID },
      output: VideoJobSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { params }) => video.getJob(ctx.organizationId, params.id),
      summary: describeJob,
    }),
    defineTool({
      name: 'get_video_credits',
      title: 'Video credits left this month',
      route: 'GET /video/credits',
      description:
        "This month's video credits of the organisation (`period` is the UTC month, YYYY-MM): the plan's allowance (null = unlimited), extra credits granted, credits used by finished videos and reserved by unfinished ones, what remains, and `resetsAt` (ISO 8601, UTC) when the next month starts. Each provider's cost is in list_video_providers.",
      input: {},
      output: VideoCreditsSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx) => video.credits(ctx.organizationId),
      summary: (c) => `${c.remaining === null ? 'Unlimited' : c.remaining} video credit(s) left in ${c.period} (${c.used} used, ${c.reserved} reserved, plan ${c.plan}); renews at ${c.resetsAt}`,
    }),
  ];
}
