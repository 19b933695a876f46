import { z } from 'zod';
import type { ActorKind } from '../../db/schema/index.js';

/** who acts (the schema's `ACTOR_KINDS`; checked against its type) */
const ACTOR_KINDS = ['user', 'api_key', 'oauth_app', 'mcp', 'preview_link', 'system'] as const satisfies readonly ActorKind[];

export const ACTIVITY_PAGE_MAX = 100;

const isoDate = (what: string) =>
  z
    .string()
    .refine((v) => !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date-time')
    .describe(what);

export const ActivityQuerySchema = z.object({
  from: isoDate('entries at or after this time (ISO 8601)').optional(),
  to: isoDate('entries before this time (ISO 8601)').optional(),
  actorKind: z.enum(ACTOR_KINDS).optional().describe('who acted: a person (user), an API key, an OAuth app, an assistant (mcp), a preview link, or the service (system)'),
  actorId: z.string().min(1).max(200).optional().describe("the actor's id (a user, API key or OAuth app id)"),
  action: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[a-z_]+(\.[a-z_]+)*(\.|\*)?$/, 'must be an action such as post.created, or a prefix ending in . or * (post.)')
    .optional()
    .describe('an action (`post.created`), or every action of a prefix ending in `.` or `*` (`post.`)'),
  targetKind: z.string().min(1).max(50).optional().describe('`post`, `channel`, `api_key`, `oauth_app`, `webhook`, `member`, `invitation`, …'),
  targetId: z.string().min(1).max(200).optional().describe('the target’s id'),
  limit: z.coerce.number().int().min(1).max(ACTIVITY_PAGE_MAX).default(50).describe(`entries per page (at most ${ACTIVITY_PAGE_MAX})`),
  cursor: z.string().min(1).max(200).optional().describe('`nextCursor` of the previous page'),
});
export type ActivityQuery = z.output<typeof ActivityQuerySchema>;

export const ActivityEntrySchema = z
  .object({
    id: z.string(),
    at: z.string().describe('when (ISO 8601, UTC)'),
    actor: z.object({
      kind: z.enum(ACTOR_KINDS),
      id: z.string().nullable().describe('the user, API key or OAuth app id; null for the system'),
      name: z.string().describe('as it was named then'),
    }),
    action: z.string().describe('e.g. `post.created`, `channel.disabled`, `api_key.revoked`'),
    target: z.object({
      kind: z.string(),
      id: z.string().nullable(),
      name: z.string().nullable(),
    }),
    details: z.record(z.string(), z.unknown()).describe('what else is worth knowing (never a secret)'),
  })
  .meta({ id: 'ActivityEntry' });

export const ActivityPageSchema = z.object({
  entries: z.array(ActivityEntrySchema).describe('newest first'),
  nextCursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last page'),
});
export type ActivityPage = z.input<typeof ActivityPageSchema>;
