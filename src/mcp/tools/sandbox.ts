import { connectingPersonOf } from '../../modules/integrations/connect.service.js';
import { IntegrationSchema } from '../../modules/integrations/integrations.schemas.js';
import { SandboxChannelParamsSchema, SandboxConnectBodySchema, SandboxFaultBodySchema, SandboxFaultsSchema, SandboxFeedSchema } from '../../modules/sandbox/sandbox.schemas.js';
import type { SandboxService } from '../../modules/sandbox/sandbox.service.js';
import { defineTool } from '../tool.js';

const CHANNEL = 'the sandbox channel id (from list_channels: `sandbox: true`)';

/** Sandbox channels: the tools of `modules/sandbox/sandbox.routes.ts`, on the same service methods. */
export function sandboxTools(sandbox: SandboxService) {
  return [
    defineTool({
      name: 'connect_sandbox_channel',
      title: 'Connect a sandbox channel',
      route: 'POST /sandbox/channels',
      description:
        "Connects a sandbox channel of any platform: the platform's real adapter against its simulator inside Tidings, so posts, media, threads, analytics and failures behave as on the platform while nothing reaches the real one. Use it to try things safely. With `refresh`, reconnects that sandbox channel (after a revoked fault).",
      input: { body: SandboxConnectBodySchema },
      hints: { identifier: 'the platform identifier (from list_platforms), e.g. x, linkedin, telegram', name: 'the channel name (optional)', refresh: 'a sandbox channel id to reconnect instead (optional)' },
      output: IntegrationSchema,
      outputKey: 'channel',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: (ctx, { body }) => sandbox.connect(ctx.organizationId, body.identifier, body, connectingPersonOf(ctx.auth)),
      summary: (c) => `Connected sandbox channel ${c.name} (${c.identifier}), id ${c.id}`,
    }),
    defineTool({
      name: 'get_sandbox_feed',
      title: "A sandbox channel's feed",
      route: 'GET /sandbox/channels/:id/feed',
      description: 'What a sandbox channel published, as its platform holds it: each item with its text (as the platform stored it), media, the item it replies to, and the Tidings post it is.',
      input: { params: SandboxChannelParamsSchema },
      hints: { id: CHANNEL },
      output: SandboxFeedSchema,
      outputKey: 'feed',
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      run: async (ctx, { params }) => ({ sandbox: true as const, ...(await sandbox.feed(ctx.organizationId, params.id)) }),
      summary: (f) => `${f.items.length} item(s) on ${f.integration.name}`,
    }),
    defineTool({
      name: 'get_sandbox_faults',
      title: "A sandbox channel's outages",
      route: 'GET /sandbox/channels/:id/faults',
      description: 'The outages in progress on a sandbox channel\'s platform: down (503) until, slow until and by how many seconds.',
      input: { params: SandboxChannelParamsSchema },
      hints: { id: CHANNEL },
      output: SandboxFaultsSchema,
      outputKey: 'faults',
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      run: (ctx, { params }) => sandbox.faults(ctx.organizationId, params.id),
      summary: (f) => `down until ${f.downUntil ?? '-'}, slow until ${f.slowUntil ?? '-'}`,
    }),
    defineTool({
      name: 'make_sandbox_channel_fail',
      title: 'Make a sandbox channel fail',
      route: 'POST /sandbox/channels/:id/faults',
      description:
        'Makes a sandbox channel fail as its platform does, to see retries, notifications and webhooks: revoked (reconnect needed), rate_limited (retried after the platform\'s wait), media_refused and duplicate (refused in the platform\'s words) meet the next request; down (503) and slow last `minutes`.',
      input: { params: SandboxChannelParamsSchema, body: SandboxFaultBodySchema },
      hints: { id: CHANNEL, kind: 'revoked, rate_limited, media_refused, duplicate, down or slow', minutes: 'down / slow: for how long (default 5)', delaySeconds: 'slow: seconds each request waits (default 5)' },
      output: SandboxFaultsSchema,
      outputKey: 'faults',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      run: (ctx, { params, body }) => sandbox.fault(ctx.organizationId, params.id, body),
      summary: () => 'Fault set',
    }),
    defineTool({
      name: 'end_sandbox_outages',
      title: "End a sandbox channel's outages",
      route: 'DELETE /sandbox/channels/:id/faults',
      description: "Ends the down and slow outages of a sandbox channel's platform now.",
      input: { params: SandboxChannelParamsSchema },
      hints: { id: CHANNEL },
      output: SandboxFaultsSchema,
      outputKey: 'faults',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: (ctx, { params }) => sandbox.clearFaults(ctx.organizationId, params.id),
      summary: () => 'Outages ended',
    }),
  ];
}
