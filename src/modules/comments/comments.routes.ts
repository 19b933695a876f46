import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { notFound } from '../../errors.js';
import { errorResponses } from '../../http/error-schema.js';
import { commentCaller } from './comments.caller.js';
import type { CommentsService } from './comments.service.js';
import {
  CommentListSchema,
  CommentParamsSchema,
  CommentSchema,
  CreateCommentBodySchema,
  DeletedCommentSchema,
  GroupParamsSchema,
  ListCommentsQuerySchema,
  UpdateCommentBodySchema,
} from './comments.schemas.js';

const tags = ['Comments'];
const ABOUT = 'Internal comments on a post group (the calendar’s one post across channels): never published anywhere.';

/**
 * Comments (issue 31). A sandbox key (`tdk_test_…`) reaches only the threads of groups on sandbox
 * channels (`sandboxGroup`, the sandbox scope's own check): any other is NOT_FOUND to it.
 */
export function commentsRoutes(service: CommentsService, opts: { sandboxGroup(organizationId: string, group: string): Promise<boolean | undefined> }): FastifyPluginAsyncZod {
  const checkGroup = async (req: FastifyRequest, group: string | undefined, what: string) => {
    if (!req.auth.sandbox) return;
    if (group === undefined || (await opts.sandboxGroup(req.auth.organizationId, group)) !== true) throw notFound(what);
  };
  const checkComment = async (req: FastifyRequest, id: string) => {
    if (req.auth.sandbox) await checkGroup(req, await service.groupOf(req.auth.organizationId, id), 'Comment');
  };

  return async (app) => {
    app.get(
      '/posts/group/:group/comments',
      {
        schema: {
          tags,
          summary: 'The comments on a post group, oldest first',
          description: `${ABOUT} \`postId\` keeps those about one post of the group. 404 when the organisation has no live post in the group.`,
          params: GroupParamsSchema,
          querystring: ListCommentsQuerySchema,
          response: { 200: CommentListSchema, ...errorResponses('NOT_FOUND') },
        },
      },
      async (req) => {
        await checkGroup(req, req.params.group, 'Post group');
        return service.listComments(req.auth.organizationId, req.params.group, req.query.postId);
      },
    );

    app.post(
      '/posts/group/:group/comments',
      {
        schema: {
          tags,
          summary: 'Comment on a post group',
          description: `${ABOUT} Each member in \`mentions\` (user ids) gets a notification (and a mail when the service sends mail). A \`postId\` that is not a post of the group, or a mention that is not a member, is a 400 naming it.`,
          params: GroupParamsSchema,
          body: CreateCommentBodySchema,
          response: { 201: CommentSchema, ...errorResponses('NOT_FOUND') },
        },
      },
      async (req, reply) => {
        await checkGroup(req, req.params.group, 'Post group');
        return reply.status(201).send(await service.createComment(req.auth.organizationId, req.params.group, commentCaller(req.auth), req.body));
      },
    );

    app.patch(
      '/comments/:id',
      {
        schema: {
          tags,
          summary: 'Edit, resolve or reopen a comment',
          description: 'Its author alone changes `body` and `mentions` (403 for anyone else; members newly mentioned are notified, the others not again); anyone in the organisation sets `resolved`.',
          params: CommentParamsSchema,
          body: UpdateCommentBodySchema,
          response: { 200: CommentSchema, ...errorResponses('NOT_FOUND', 'FORBIDDEN') },
        },
      },
      async (req) => {
        await checkComment(req, req.params.id);
        return service.updateComment(req.auth.organizationId, req.params.id, commentCaller(req.auth), req.body);
      },
    );

    app.delete(
      '/comments/:id',
      {
        schema: {
          tags,
          summary: 'Delete a comment',
          description: 'Its author, or an owner or admin of the organisation (403 for anyone else). It is gone (404) afterwards.',
          params: CommentParamsSchema,
          response: { 200: DeletedCommentSchema, ...errorResponses('NOT_FOUND', 'FORBIDDEN') },
        },
      },
      async (req) => {
        await checkComment(req, req.params.id);
        return service.deleteComment(req.auth.organizationId, req.params.id, commentCaller(req.auth));
      },
    );
  };
}
