import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/error-schema.js';
import { connectingPersonOf } from '../integrations/connect.service.js';
import { IntegrationSchema } from '../integrations/integrations.schemas.js';
import { SandboxChannelParamsSchema, SandboxConnectBodySchema, SandboxFaultBodySchema, SandboxFaultsSchema, SandboxFeedSchema } from './sandbox.schemas.js';
import type { SandboxService } from './sandbox.service.js';

export function sandboxRoutes(service: SandboxService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/sandbox/channels',
      {
        schema: {
          tags: ['Sandbox'],
          summary: 'Connect a sandbox channel',
          description:
            "A channel of any platform that runs the platform's real adapter against its simulator inside Tidings: publishing, media, threads, analytics and failures behave as on the platform, and nothing ever reaches the real one.",
          body: SandboxConnectBodySchema,
          response: { 201: IntegrationSchema, ...errorResponses('NOT_FOUND', 'PLAN_LIMIT_REACHED', 'CONFLICT', 'PLATFORM_NOT_AVAILABLE', 'PLATFORM_UNREACHABLE') },
        },
      },
      async (req, reply) => reply.status(201).send(await service.connect(req.auth.organizationId, req.body.identifier, req.body, connectingPersonOf(req.auth))),
    );

    app.get(
      '/sandbox/channels/:id/feed',
      {
        schema: {
          tags: ['Sandbox'],
          summary: "What a sandbox channel published, as its platform holds it",
          params: SandboxChannelParamsSchema,
          response: { 200: SandboxFeedSchema, ...errorResponses('PLATFORM_NOT_AVAILABLE') },
        },
      },
      async (req) => ({ sandbox: true as const, ...(await service.feed(req.auth.organizationId, req.params.id)) }),
    );

    app.get(
      '/sandbox/channels/:id/faults',
      {
        schema: { tags: ['Sandbox'], summary: "A sandbox channel's outages in progress", params: SandboxChannelParamsSchema, response: { 200: SandboxFaultsSchema, ...errorResponses('PLATFORM_NOT_AVAILABLE') } },
      },
      async (req) => service.faults(req.auth.organizationId, req.params.id),
    );

    app.post(
      '/sandbox/channels/:id/faults',
      {
        schema: {
          tags: ['Sandbox'],
          summary: 'Make a sandbox channel fail as its platform does',
          description: 'revoked, rate_limited, media_refused and duplicate meet the next request that can fail that way; down and slow last `minutes`.',
          params: SandboxChannelParamsSchema,
          body: SandboxFaultBodySchema,
          response: { 200: SandboxFaultsSchema, ...errorResponses('PLATFORM_NOT_AVAILABLE') },
        },
      },
      async (req) => service.fault(req.auth.organizationId, req.params.id, req.body),
    );

    app.delete(
      '/sandbox/channels/:id/faults',
      {
        schema: { tags: ['Sandbox'], summary: "End a sandbox channel's outages (down, slow)", params: SandboxChannelParamsSchema, response: { 200: SandboxFaultsSchema, ...errorResponses('PLATFORM_NOT_AVAILABLE') } },
      },
      async (req) => service.clearFaults(req.auth.organizationId, req.params.id),
    );
  };
}
