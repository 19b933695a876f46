import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { abortOnDisconnect } from '../../http/abort-on-disconnect.js';
import { errorResponses } from '../../http/error-schema.js';
import { PageQuerySchema } from '../../lib/pagination.js';
import { MediaItemSchema } from '../media/media.schemas.js';
import type { VideoService } from './video.service.js';
import {
  GenerateVideoBodySchema,
  VideoCreditsSchema,
  VideoFunctionBodySchema,
  VideoFunctionResultSchema,
  VideoJobPageSchema,
  VideoJobParamsSchema,
  VideoJobSchema,
  VideoProvidersSchema,
} from './video.schemas.js';

const tags = ['Video'];

/** `Prefer: respond-async` (RFC 7240): answer 202 with the job at once instead of waiting. */
function wantsAsync(prefer: string | string[] | undefined): boolean {
  const values = Array.isArray(prefer) ? prefer : prefer ? [prefer] : [];
  return values.some((v) => v.split(',').some((p) => p.trim().toLowerCase() === 'respond-async'));
}

export function videoRoutes(service: VideoService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/generate-video',
      {
        schema: {
          tags,
          summary: 'Generate a video; answers the media item, or the job while it is still being made',
          description:
            "`type` is a provider of `GET /video/providers` (`slides`, built in, unless the deployment turned it off). The generation reserves the provider's credit cost from the plan's monthly video credits (403 naming the limit when too few are left), runs in a worker, and is stored as a media item of the organisation. The request waits for it (up to VIDEO_REQUEST_WAIT_SECONDS): done → 201 with the media item, as the reference answers; failed → 422 with the reason (credits refunded); still running → 202 with the job (`GET /video/jobs/{id}`). `Prefer: respond-async` answers 202 at once.",
          body: GenerateVideoBodySchema,
          response: {
            201: MediaItemSchema,
            202: VideoJobSchema,
            ...errorResponses('PLAN_LIMIT_REACHED', 'VIDEO_PROVIDER_NOT_AVAILABLE', 'VIDEO_GENERATION_FAILED'),
          },
        },
      },
      async (req, reply) => {
        // A client that goes away stops the wait (not the generation: the job goes on).
        const gone = abortOnDisconnect(reply);
        try {
          const r = await service.generate(req.auth.organizationId, req.body, { respondAsync: wantsAsync(req.headers.prefer), signal: gone.signal });
          if (r.status === 201) return reply.status(201).header('content-location', `video/jobs/${r.jobId}`).send(r.media);
          return reply.status(202).header('location', `video/jobs/${r.job.id}`).send(r.job);
        } finally {
          gone.done();
        }
      },
    );

    app.post(
      '/video/function',
      {
        schema: {
          tags,
          summary: 'Call a named function of a video provider',
          description: 'The functions and their parameters are listed by `GET /video/providers` (the built-in `slides` has `listTemplates`, `listFonts` and `preview`, a PNG of the first slide). Unknown function → 400 naming `functionName`.',
          body: VideoFunctionBodySchema,
          response: { 200: VideoFunctionResultSchema, ...errorResponses('VIDEO_PROVIDER_NOT_AVAILABLE') },
        },
      },
      async (req) => service.callFunction(req.auth.organizationId, req.body),
    );

    app.get(
      '/video/providers',
      {
        schema: {
          tags,
          summary: 'The video providers of this deployment (an extension)',
          description: 'Each with its output formats, credit cost, the JSON Schema of its `customParams` and its functions. An empty list: video generation is off here.',
          response: { 200: VideoProvidersSchema },
        },
      },
      async () => service.listProviders(),
    );

    app.get(
      '/video/jobs',
      { schema: { tags, summary: "The organisation's video generations, newest first (an extension)", querystring: PageQuerySchema, response: { 200: VideoJobPageSchema } } },
      async (req) => service.listJobs(req.auth.organizationId, req.query.page),
    );

    app.get(
      '/video/jobs/:id',
      { schema: { tags, summary: 'One video generation: status, progress, the media item once done (an extension)', params: VideoJobParamsSchema, response: { 200: VideoJobSchema } } },
      async (req) => service.getJob(req.auth.organizationId, req.params.id),
    );

    app.get(
      '/video/credits',
      { schema: { tags, summary: "This month's video credits of the organisation (an extension)", response: { 200: VideoCreditsSchema } } },
      async (req) => service.credits(req.auth.organizationId),
    );
  };
}
