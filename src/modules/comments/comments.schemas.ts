import { z } from 'zod';

const body = z.string().trim().min(1, 'Required').max(5000).describe('the comment text (1 to 5000 characters); @mention members with `mentions`');
const mentions = z.array(z.string().max(100)).max(50).describe('user ids of the members @mentioned (each must be a member of the organisation); each is notified once');

export const GroupParamsSchema = z.object({ group: z.string().min(1).max(200).describe('the post group (`group` of a post)') });
export const CommentParamsSchema = z.object({ id: z.string().max(100).describe('the comment id') });

export const ListCommentsQuerySchema = z.object({
  postId: z.string().max(100).optional().describe("only the comments about this post of the group (absent: the whole thread)"),
});

export const CreateCommentBodySchema = z.object({
  body,
  postId: z.string().max(100).optional().describe('one post of the group the comment is about (absent: the group as a whole)'),
  mentions: mentions.optional(),
});
export type CreateCommentBody = z.infer<typeof CreateCommentBodySchema>;

export const UpdateCommentBodySchema = z.object({
  body: body.optional().describe('the new text (its author only)'),
  mentions: mentions.optional().describe('the members @mentioned (its author only); members added are notified, the others not again'),
  resolved: z.boolean().optional().describe('true resolves the comment, false reopens it (anyone in the organisation)'),
});
export type UpdateCommentBody = z.infer<typeof UpdateCommentBodySchema>;

export const CommentSchema = z
  .object({
    id: z.string(),
    group: z.string(),
    postId: z.string().nullable(),
    author: z.object({ kind: z.enum(['user', 'api_key', 'oauth_app', 'mcp', 'preview_link', 'system']).describe('a person, an API key, an OAuth app…'), id: z.string().nullable(), name: z.string() }),
    body: z.string(),
    mentions: z.array(z.object({ id: z.string(), name: z.string() })),
    resolved: z.boolean(),
    resolvedAt: z.iso.datetime().nullable(),
    /** the name of who resolved it */
    resolvedBy: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    /** the text or mentions were changed after it was written */
    edited: z.boolean(),
  })
  .meta({ id: 'PostComment' });
export type Comment = z.infer<typeof CommentSchema>;

export const CommentListSchema = z.object({ comments: z.array(CommentSchema) }).meta({ id: 'PostCommentList' });
export const DeletedCommentSchema = z.object({ id: z.string(), deleted: z.literal(true) });
