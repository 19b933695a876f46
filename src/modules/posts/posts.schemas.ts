import { z } from 'zod';
import { PlatformIdentifierSchema } from '../integrations/integrations.schemas.js';

/** The instants PostgreSQL stores as JavaScript writes them: years 0001–9999 (UTC). */
export const MIN_INSTANT_MS = Date.parse('0001-01-01T00:00:00.000Z');
export const MAX_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');
/** Earliest publish date stored: the driver reads years below 100 back as 19xx/20xx. */
export const MIN_PUBLISH_DATE_MS = Date.parse('1970-01-01T00:00:00.000Z');

/** An instant with any offset (a string without one is read as UTC, as the reference does). */
export const InstantSchema = z
  .string()
  .trim()
  .refine(
    (s) => {
      if (!/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(s)) return false;
      // A day the month does not have (2031-02-30) is refused, not rolled over into the next month.
      const [y, m, d] = s.slice(0, 10).split('-').map(Number) as [number, number, number];
      if (d > new Date(Date.UTC(2000 + (y % 400), m, 0)).getUTCDate()) return false;
      const ms = parseInstant(s);
      return !Number.isNaN(ms) && ms >= MIN_INSTANT_MS && ms <= MAX_INSTANT_MS;
    },
    { message: 'Must be an ISO 8601 date-time between the years 0001 and 9999, e.g. 2026-09-01T09:00:00Z' },
  )
  // (RFC 3339 date-times always pass; a date alone or no offset is read leniently, as UTC)
  .meta({ format: 'date-time' });

/** Milliseconds of an ISO 8601 string; a string without an offset is UTC. */
export function parseInstant(s: string): number {
  const t = s.trim();
  const hasOffset = /(Z|[+-]\d{2}:?\d{2})$/i.test(t) && /[T ]/.test(t);
  const normalised = t.replace(' ', 'T');
  return Date.parse(hasOffset ? normalised : /T/.test(normalised) ? `${normalised}Z` : `${normalised}T00:00:00Z`);
}

/**
 * An optional string where an empty one means absent, as the Postiz API reads it: clients built for
 * it (the n8n node) send `id: ""` for a new item and `group: ""` for a new group.
 */
function optionalNonEmpty(description: string) {
  return z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .describe(description);
}

const MediaRefInput = z.union([
  z.string().min(1).describe('media id'),
  z
    .looseObject({
      id: z.string().optional().describe('media id'),
      path: z.string().optional().describe('the media URL the service gave it'),
      alt: z.string().optional(),
      thumbnail: z.string().optional(),
    })
    .refine((o) => Boolean(o.id) || Boolean(o.path), { message: 'Give the media id or its path' }),
]);

export const PostValueSchema = z.looseObject({
  content: z.string().max(100_000).default(''),
  image: z.array(MediaRefInput).max(50).default([]),
  delay: z.coerce.number().int().min(0).max(60 * 24 * 30).default(0).describe('minutes after the previous item (thread items)'),
  id: optionalNonEmpty('existing post row to edit in place; absent or empty for a new item'),
});

export const PostEntrySchema = z.looseObject({
  integration: z.looseObject({ id: z.string({ error: 'Required' }).min(1, 'Required') }),
  value: z.array(PostValueSchema).min(1, 'At least one item').max(100),
  settings: z
    .record(z.string(), z.unknown())
    .optional()
    // `{}` (what the n8n node sends when no setting is given) and `{ __type }` alone give no settings,
    // so the channel's saved defaults apply.
    .transform((v) => (v && Object.keys(v).some((k) => k !== '__type') ? v : undefined))
    .describe("platform settings (field names per platform); absent or empty: the channel's saved defaults"),
  group: optionalNonEmpty('the group of the posts being edited; absent or empty for a new group'),
  shortLink: z.boolean().optional().describe("shorten this channel's links (overrides the request's `shortLink`)"),
});

export const POST_TYPES = ['draft', 'schedule', 'now', 'update'] as const;

export const CreatePostsBodySchema = z
  .looseObject({
    type: z.enum(POST_TYPES).default('schedule'),
    date: z
      .string()
      .optional()
      .transform((v) => (v?.trim() === '' ? undefined : v))
      .pipe(InstantSchema.optional())
      .meta({ format: 'date-time' })
      .describe('when to publish (any ISO 8601 offset; without one, UTC). Required; with type `now` it is ignored and may be left out or empty'),
    shortLink: z
      .boolean()
      .default(false)
      .describe("replace every http(s) URL of the text by a short link when it is published (Settings → Short links: the built-in shortener, Dub, Short.io or Kutt, and UTM parameters); a channel's `posts[].shortLink` overrides it"),
    tags: z.array(z.looseObject({ value: z.string(), label: z.string() })).max(50).default([]),
    posts: z.array(PostEntrySchema).min(1, 'At least one post').max(50),
    inter: z
      .union([z.number().int().min(1).max(365), z.null()], { error: 'Must be a whole number of days, 1..365 (or null)' })
      .optional()
      .describe('repeat every N days: creates a daily series starting at `date` (answers the first occurrence, as without it)'),
    creationMethod: z.string().optional(),
    republish: z.boolean().optional(),
  })
  .superRefine((b, ctx) => {
    if (typeof b.inter === 'number' && b.type !== 'schedule' && b.type !== 'draft') {
      ctx.addIssue({ code: 'custom', path: ['inter'], message: 'Only with type "schedule" or "draft"' });
    }
    if (typeof b.inter === 'number' && b.posts.some((p) => p.group !== undefined || p.value.some((v) => v.id !== undefined))) {
      ctx.addIssue({ code: 'custom', path: ['inter'], message: 'Only when creating posts (not with an existing group or ids)' });
    }
    if (b.date === undefined && b.type !== 'now') ctx.addIssue({ code: 'custom', path: ['date'], message: 'Required' });
    if (b.date !== undefined) {
      const ms = parseInstant(b.date);
      // (out-of-range instants are already named by InstantSchema)
      if (ms >= MIN_INSTANT_MS && ms < MIN_PUBLISH_DATE_MS) ctx.addIssue({ code: 'custom', path: ['date'], message: 'Must be 1970-01-01T00:00:00Z or later' });
    }
  })
  // The document says `date` is required, as the reference does: only with type `now` may it be
  // left out, which a conditional above checks and JSON Schema clients could not express usefully.
  .meta({ required: ['date', 'posts'] } as Record<string, unknown>);

export type CreatePostsBody = z.infer<typeof CreatePostsBodySchema>;

export const CreatePostsResponseSchema = z.array(z.object({ postId: z.string(), integration: z.string(), group: z.string() }));

export const MediaItemRefSchema = z.object({
  id: z.string(),
  path: z.string(),
  type: z.enum(['image', 'video']).optional(),
  mimeType: z.string().optional(),
  alt: z.string().nullable().optional(),
  thumbnail: z.string().nullable().optional(),
});

const ThreadItemSchema = z.object({
  id: z.string(),
  content: z.string(),
  image: z.array(MediaItemRefSchema),
  delay: z.number().int(),
  state: z.enum(['DRAFT', 'QUEUE', 'PUBLISHED', 'ERROR']),
  releaseId: z.string().nullable(),
  releaseURL: z.string().nullable(),
  error: z.string().nullable(),
  publishedAt: z.iso.datetime().nullable(),
});

export const PostSchema = z
  .object({
    id: z.string(),
    content: z.string(),
    publishDate: z.iso.datetime(),
    releaseURL: z.string().nullable(),
    releaseId: z.string().nullable(),
    state: z.enum(['DRAFT', 'QUEUE', 'PUBLISHED', 'ERROR']),
    intervalInDays: z.number().int().nullable().describe('repeat every N days (Postiz; the same as `inter`), else null'),
    group: z.string(),
    creationMethod: z.string(),
    settings: z.record(z.string(), z.unknown()),
    tags: z.array(z.object({ tag: z.object({ id: z.string(), name: z.string() }) })),
    integration: z.object({ id: z.string(), providerIdentifier: PlatformIdentifierSchema, name: z.string(), picture: z.string().nullable() }),
    image: z.array(MediaItemRefSchema),
    error: z.string().nullable(),
    delay: z.number().int(),
    publishedAt: z.iso.datetime().nullable(),
    thread: z.array(ThreadItemSchema).describe('items published after the first, as replies or comments'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    seriesId: z.string().nullable().optional().describe('Extension: the series (repeating post) this post is an occurrence of (`GET /series/{id}`)'),
    inter: z.number().int().nullable().optional().describe('repeat every N days (a daily series; Postiz `inter`), else null'),
    shortLink: z.boolean().optional().describe("Extension: the post's links are shortened when it is published (`GET /posts/{id}/links`)"),
    approval: z
      .object({
        status: z.enum(['pending_approval', 'changes_requested', 'approved']),
        ruleId: z.string().nullable().describe('the approval rule that asked for it (`GET /approval-rules`); null when asked by hand or by the contributor role'),
        requestedBy: z.string().nullable(),
        requestedAt: z.iso.datetime().nullable(),
        decidedBy: z.string().nullable().describe('who approved it or asked for changes'),
        decidedAt: z.iso.datetime().nullable(),
      })
      .nullable()
      .optional()
      .describe('Extension (approvals): where the post stands; `pending_approval` and `changes_requested` posts are drafts until approved. Null when it never went through approval'),
  })
  .meta({ id: 'Post' });

export type PostOut = z.infer<typeof PostSchema>;

export const PostDetailSchema = PostSchema.extend({
  attempts: z.number().int().describe('publish attempts so far: 1 for a post published on its first try; for a thread, those of the item that needed the most'),
  lastAttemptAt: z.iso.datetime().nullable(),
  nextAttemptAt: z.iso.datetime().nullable().describe('when the publisher acts on this post next (queued posts)'),
}).meta({ id: 'PostDetail' });

export const ListPostsQuerySchema = z.object({
  startDate: InstantSchema,
  endDate: InstantSchema,
  customer: z.string().min(1).optional(),
});

export const PostParamsSchema = z.object({ id: z.string() });
export const GroupParamsSchema = z.object({ group: z.string() });

export const StatusBodySchema = z.object({ status: z.enum(['draft', 'schedule']) });
export const DateBodySchema = z.object({ date: InstantSchema.describe('the new publish time (any offset; UTC when none is given)') });
export const DateResponseSchema = z.object({ id: z.string(), state: z.enum(['DRAFT', 'QUEUE']), publishDate: z.iso.datetime() });
export const GroupDateResponseSchema = z.object({
  group: z.string(),
  publishDate: z.iso.datetime(),
  posts: z
    .array(z.object({ id: z.string(), integration: z.object({ id: z.string() }), state: z.enum(['DRAFT', 'QUEUE']), publishDate: z.iso.datetime() }))
    .describe('the posts of the group (one per channel; their thread items moved with them)'),
});
export const StatusResponseSchema = z.object({ id: z.string(), state: z.enum(['DRAFT', 'QUEUE', 'PUBLISHED', 'ERROR']) });

export const SettingsBodySchema = z.object({ settings: z.record(z.string(), z.unknown(), { error: 'Must be an object' }) });
export const SettingsResponseSchema = z.object({ postId: z.string(), publishDate: z.iso.datetime(), settings: z.record(z.string(), z.unknown()) });

export const ReleaseIdBodySchema = z.object({
  releaseId: z.string({ error: 'Required' }).trim().min(1, 'Required').max(500),
  releaseURL: z.url().max(2000).optional(),
});

export const MissingResponseSchema = z.object({
  ready: z.boolean(),
  missing: z.array(z.object({ field: z.string(), code: z.string(), message: z.string() })),
  candidates: z.array(z.object({ id: z.string(), url: z.string() })).optional(),
});

export const DeleteResponseSchema = z.object({ deleted: z.array(z.string()).describe('ids of the removed post rows') });
