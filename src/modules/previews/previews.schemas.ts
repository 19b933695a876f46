import { z } from 'zod';
import { InstantSchema } from '../posts/posts.schemas.js';

/** Longest a link lives: 90 days. */
export const MAX_EXPIRES_HOURS = 2160;
/** The widest date range one link shows (a year and a day: a yearly plan with its edges). */
export const MAX_RANGE_DAYS = 366;

const GroupTargetSchema = z.object({
  kind: z.literal('group'),
  group: z.string().trim().min(1, 'Required').max(200).describe('the post group (`group` of a post): its posts on every channel, with their thread items'),
});
const RangeTargetSchema = z.object({
  kind: z.literal('range'),
  from: InstantSchema.describe('the first publish time shown (inclusive)'),
  to: InstantSchema.describe(`the end of the range (exclusive); at most ${MAX_RANGE_DAYS} days after \`from\``),
  customerId: z.string().max(100).optional().describe('only the posts on the channels of this client group (`GET /groups`); absent: every channel'),
});

export const CreatePreviewLinkBodySchema = z.object({
  target: z
    .discriminatedUnion('kind', [GroupTargetSchema, RangeTargetSchema], { error: 'Must be {kind: "group", group} or {kind: "range", from, to, customerId?}' })
    .describe('what the link shows: one post group, or every post group published in a date range'),
  title: z.string().trim().max(200).optional().describe('what the viewer reads at the top of the page (e.g. "March posts for Acme")'),
  expiresInHours: z.number().int().min(1).max(MAX_EXPIRES_HOURS).default(168).describe(`hours until the link stops working (1 to ${MAX_EXPIRES_HOURS}; default 168, a week)`),
  password: z.string().min(8).max(200).optional().describe('asked of the viewer before anything is shown (8 to 200 characters); only its hash is kept'),
  allowApproval: z
    .boolean()
    .default(false)
    .describe('the viewer may approve or request changes on the posts shown, by name (only someone who may approve posts can give this: 403 otherwise)'),
});
export type CreatePreviewLinkBody = z.infer<typeof CreatePreviewLinkBodySchema>;

export const PreviewLinkParamsSchema = z.object({ id: z.string().max(100).describe('the preview link id') });

export const ListPreviewLinksQuerySchema = z.object({
  group: z.string().max(200).optional().describe('only the links to this post group'),
});

export const PreviewLinkSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['group', 'range']),
    group: z.string().nullable(),
    from: z.iso.datetime().nullable(),
    to: z.iso.datetime().nullable(),
    customerId: z.string().nullable(),
    title: z.string(),
    allowApproval: z.boolean(),
    hasPassword: z.boolean(),
    expiresAt: z.iso.datetime(),
    revokedAt: z.iso.datetime().nullable(),
    /** the name of who made it */
    createdBy: z.string(),
    createdAt: z.iso.datetime(),
    lastViewedAt: z.iso.datetime().nullable(),
    status: z.enum(['active', 'expired', 'revoked']),
  })
  .meta({ id: 'PreviewLink' });
export type PreviewLink = z.infer<typeof PreviewLinkSchema>;

export const CreatedPreviewLinkSchema = z
  .object({
    link: PreviewLinkSchema,
    url: z.string().describe('the address to send to the client; it holds the token, shown this once only'),
  })
  .meta({ id: 'CreatedPreviewLink' });
export const PreviewLinkListSchema = z.object({ links: z.array(PreviewLinkSchema) }).meta({ id: 'PreviewLinkList' });
export const RevokedPreviewLinkSchema = z.object({ id: z.string(), revoked: z.literal(true) });

// ---- The public side (/preview-api): no account, the token is the credential. ----

export const PREVIEW_STATUSES = ['draft', 'pending_approval', 'changes_requested', 'approved', 'scheduled', 'published', 'error'] as const;
export type PreviewStatus = (typeof PREVIEW_STATUSES)[number];

export const PreviewTokenParamsSchema = z.object({ token: z.string().max(200) });
export const PreviewGroupParamsSchema = z.object({ token: z.string().max(200), group: z.string().max(200) });

const viewerName = z.string().trim().min(1, 'Required').max(100).describe('who decides (shown in the activity log and the post’s thread)');
export const PreviewApproveBodySchema = z.object({ name: viewerName, comment: z.string().trim().max(5000).optional() });
export type PreviewApproveBody = z.infer<typeof PreviewApproveBodySchema>;
export const PreviewRequestChangesBodySchema = z.object({ name: viewerName, comment: z.string().trim().min(1, 'Required').max(5000) });
export type PreviewRequestChangesBody = z.infer<typeof PreviewRequestChangesBodySchema>;

const PreviewMediaSchema = z.object({
  path: z.string(),
  type: z.enum(['image', 'video']),
  thumbnail: z.string().nullable(),
  alt: z.string().nullable(),
});

/**
 * What a link's holder sees: the posts and no more. No ids of channels, posts or the
 * organisation, no tokens, nothing the publisher keeps for itself.
 */
export const PreviewViewSchema = z.object({
  link: z.object({ title: z.string(), expiresAt: z.iso.datetime(), allowApproval: z.boolean() }),
  organization: z.object({ name: z.string() }),
  groups: z.array(
    z.object({
      group: z.string(),
      publishDate: z.iso.datetime(),
      status: z.enum(PREVIEW_STATUSES),
      posts: z.array(
        z.object({
          channel: z.object({ name: z.string(), identifier: z.string(), picture: z.string().nullable() }),
          items: z.array(z.object({ content: z.string(), image: z.array(PreviewMediaSchema), delay: z.number().int().describe('minutes after the previous item (thread items)') })),
          settings: z.record(z.string(), z.unknown()),
        }),
      ),
    }),
  ),
});
export type PreviewView = z.infer<typeof PreviewViewSchema>;

export const PreviewDecisionSchema = z.object({ group: z.string(), status: z.enum(PREVIEW_STATUSES) });
