import type { CommentsService } from '../../modules/comments/comments.service.js';
import { commentCaller } from '../../modules/comments/comments.caller.js';
import {
  CommentListSchema,
  CommentParamsSchema,
  CommentSchema,
  CreateCommentBodySchema,
  DeletedCommentSchema,
  GroupParamsSchema,
  ListCommentsQuerySchema,
  UpdateCommentBodySchema,
} from '../../modules/comments/comments.schemas.js';
import { defineTool } from '../tool.js';

const ABOUT = 'Comments are internal notes of the team on a post group (one post across channels, `group` of a post from list_posts or get_post): never published anywhere.';
const GROUP = 'the post group (`group` of a post, from list_posts or get_post)';
const COMMENT_ID = 'the comment id (from list_comments or add_comment)';
const MENTIONS = 'user ids of members to @mention (each must be a member of the organisation); each is notified once';

const describe = (c: { id: string; author: { name: string }; body: string; resolved: boolean }) =>
  `${c.author.name}${c.resolved ? ' (resolved)' : ''}: ${c.body.length > 80 ? `${c.body.slice(0, 79)}…` : c.body} (id ${c.id})`;

/** Comments on posts: the tools of `modules/comments/comments.routes.ts`, on the same service methods. */
export function commentTools(comments: CommentsService) {
  return [
    defineTool({
      name: 'list_comments',
      title: 'List the comments on a post',
      route: 'GET /posts/group/:group/comments',
      description: `The comment thread of a post group, oldest first, with authors, mentions and whether each is resolved. ${ABOUT}`,
      input: { params: GroupParamsSchema, query: ListCommentsQuerySchema },
      hints: { group: GROUP, postId: 'a post id of the group, to keep only the comments about that post' },
      output: CommentListSchema,
      annotations: { readOnlyHint: true, idempotentHint: true },
      run: (ctx, { params, query }) => comments.listComments(ctx.organizationId, params.group, query.postId),
      summary: (r) => `${r.comments.length} comment(s)${r.comments.length ? `: ${r.comments.slice(0, 10).map(describe).join('; ')}` : ''}`,
    }),
    defineTool({
      name: 'add_comment',
      title: 'Comment on a post',
      route: 'POST /posts/group/:group/comments',
      description: `Adds a comment to a post group's thread, written in the name of this connection (the OAuth app or API key). Members in \`mentions\` are notified. ${ABOUT}`,
      input: { params: GroupParamsSchema, body: CreateCommentBodySchema },
      hints: { group: GROUP, body: 'the comment text', postId: 'a post id of the group when the comment is about that one channel’s post', mentions: MENTIONS },
      output: CommentSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
      run: (ctx, { params, body }) => comments.createComment(ctx.organizationId, params.group, commentCaller(ctx.auth), body),
      summary: (c) => `Added comment ${describe(c)}`,
    }),
    defineTool({
      name: 'update_comment',
      title: 'Edit, resolve or reopen a comment',
      route: 'PATCH /comments/:id',
      description: `Changes the fields given: \`body\` and \`mentions\` only on comments this connection wrote (others: 403); \`resolved\` true/false on any comment. ${ABOUT}`,
      input: { params: CommentParamsSchema, body: UpdateCommentBodySchema },
      rename: { 'params.id': 'commentId' },
      hints: { commentId: COMMENT_ID, body: 'the new text', mentions: MENTIONS, resolved: 'true resolves the comment, false reopens it' },
      output: CommentSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
      run: (ctx, { params, body }) => comments.updateComment(ctx.organizationId, params.id, commentCaller(ctx.auth), body),
      summary: (c) => `Updated comment ${describe(c)}`,
    }),
    defineTool({
      name: 'delete_comment',
      title: 'Delete a comment',
      route: 'DELETE /comments/:id',
      description: `Deletes a comment this connection wrote (an owner or admin in the web app may delete any). ${ABOUT}`,
      input: { params: CommentParamsSchema },
      rename: { 'params.id': 'commentId' },
      hints: { commentId: COMMENT_ID },
      output: DeletedCommentSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
      run: (ctx, { params }) => comments.deleteComment(ctx.organizationId, params.id, commentCaller(ctx.auth)),
      summary: (r) => `Deleted comment ${r.id}`,
    }),
  ];
}
