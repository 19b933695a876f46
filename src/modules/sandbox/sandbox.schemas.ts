import { z } from 'zod';
import { PlatformIdentifierSchema } from '../integrations/integrations.schemas.js';
import { SANDBOX_FAULTS } from './sandbox.service.js';

export const SandboxConnectBodySchema = z.object({
  identifier: PlatformIdentifierSchema.describe('the platform whose sandbox channel to connect'),
  name: z.string().trim().min(1).max(100).optional().describe('the channel name (default "Sandbox <Platform> <4 characters>")'),
  refresh: z.string().optional().describe('reconnect this sandbox channel (after a "revoked" fault) instead of connecting a new one'),
});

export const SandboxChannelParamsSchema = z.object({ id: z.string().describe('the sandbox channel (integration id)') });

export const SandboxFaultBodySchema = z.object({
  kind: z
    .enum(SANDBOX_FAULTS, { error: `Must be one of ${SANDBOX_FAULTS.join(', ')}` })
    .describe(
      'revoked: the grant is gone (reconnect needed); rate_limited: the next request is throttled with the platform\'s wait; media_refused / duplicate: the next post is refused in the platform\'s words; down: every request answers 503 for `minutes`; slow: every request waits `delaySeconds` for `minutes`',
    ),
  minutes: z.number().min(0).max(1440).optional().describe('down / slow: for how long (default 5; 0 ends it)'),
  delaySeconds: z.number().min(0).max(120).optional().describe('slow: how long each request waits (default 5)'),
});

export const SandboxFaultsSchema = z
  .object({
    downUntil: z.iso.datetime().nullable().describe('the platform answers 503 until then'),
    slowUntil: z.iso.datetime().nullable().describe('requests are slow until then'),
    slowSeconds: z.number().nullable(),
  })
  .meta({ id: 'SandboxFaults' });

const FeedItemBase = z.object({
  id: z.string().describe("the platform's id of the item"),
  text: z.string(),
  html: z.boolean().optional().describe('`text` is HTML'),
  title: z.string().optional(),
  replyTo: z.string().optional().describe('the id of the item this one replies to (thread items)'),
  media: z.array(z.object({ kind: z.enum(['image', 'video', 'document', 'other']), sha256: z.string().optional(), mimeType: z.string().optional() })),
  createdAt: z.string().optional(),
  metrics: z.record(z.string(), z.number()).optional(),
  post: z
    .object({
      id: z.string(),
      group: z.string(),
      releaseURL: z.string().nullable(),
      media: z.array(z.object({ id: z.string(), path: z.string() })),
    })
    .optional()
    .describe('the Tidings post this item is'),
});

export const SandboxFeedSchema = z
  .object({
    sandbox: z.literal(true),
    integration: z.object({ id: z.string(), identifier: z.string(), name: z.string(), profile: z.string().nullable(), picture: z.string().nullable() }),
    items: z.array(FeedItemBase),
  })
  .meta({ id: 'SandboxFeed' });
