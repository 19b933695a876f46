import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses, PLATFORM_CALL_ERRORS } from '../../http/error-schema.js';
import type { PostsService } from './posts.service.js';
import {
  CreatePostsBodySchema,
  CreatePostsResponseSchema,
  DeleteResponseSchema,
  GroupParamsSchema,
  ListPostsQuerySchema,
  MissingResponseSchema,
  PostDetailSchema,
  PostParamsSchema,
  PostSchema,
  ReleaseIdBodySchema,
  SettingsBodySchema,
  SettingsResponseSchema,
  StatusBodySchema,
  DateBodySchema,
  DateResponseSchema,
  GroupDateResponseSchema,
  StatusResponseSchema,
} from './posts.schemas.js';

const IdempotencyHeaders = z.looseObject({
  'idempotency-key': z.string().min(1).max(255).optional().describe('replays the first response to the same body for 24 h'),
});


/** What `inter` (repeat every N days) is handed to: the series module (wired in app.ts). */
export interface RepeatingPosts {
  createFromInter(organizationId: string, body: z.infer<typeof CreatePostsBodySchema> & { inter: number }): Promise<z.infer<typeof CreatePostsResponseSchema>>;
}

export function postsRoutes(service: PostsService, repeating?: RepeatingPosts): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/posts',
      {
        schema: {
          tags: ['Posts'],
          summary: 'Create, schedule, draft or edit posts on one or more channels',
          description:
            'All channels of one request share one `group`. `type: "draft"` skips settings and platform-limit validation. Edit with `posts[].group` and `value[].id`; `type: "update"` changes content and settings without touching the state.',
          headers: IdempotencyHeaders,
          body: CreatePostsBodySchema,
          response: { 201: CreatePostsResponseSchema, ...errorResponses('PLAN_LIMIT_REACHED', 'CONFLICT') },
        },
      },
      async (req, reply) => {
        const inter = req.body.inter;
        if (typeof inter === 'number' && repeating) {
          return reply.status(201).send(await repeating.createFromInter(req.auth.organizationId, { ...req.body, inter }));
        }
        const creationMethod = req.auth.credential.kind === 'session' ? 'WEB' : req.body.creationMethod === 'CLI' ? 'CLI' : 'API';
        const r = await service.createPosts(req.auth.organizationId, req.body, { idempotencyKey: req.headers['idempotency-key'], creationMethod });
        if (r.replayed) void reply.header('idempotent-replayed', 'true');
        return reply.status(r.status as 201).send(r.body as z.infer<typeof CreatePostsResponseSchema>);
      },
    );

    app.get(
      '/posts',
      {
        schema: {
          tags: ['Posts'],
          summary: 'Posts whose publish date is in [startDate, endDate], ordered by publish date',
          querystring: ListPostsQuerySchema,
          response: { 200: z.object({ posts: z.array(PostSchema) }) },
        },
      },
      async (req) => service.listPosts(req.auth.organizationId, req.query),
    );

    app.get(
      '/posts/:id',
      {
        schema: {
          tags: ['Posts'],
          summary: 'One post with its thread items, media, state, error and attempts',
          params: PostParamsSchema,
          response: { 200: PostDetailSchema },
        },
      },
      async (req) => service.getPost(req.auth.organizationId, req.params.id),
    );

    app.get(
      '/posts/group/:group',
      {
        schema: {
          tags: ['Posts'],
          summary: 'Extension: the posts of one group (one per channel) with their thread items, to edit them together',
          params: GroupParamsSchema,
          response: { 200: z.object({ posts: z.array(PostSchema) }) },
        },
      },
      async (req) => service.getGroup(req.auth.organizationId, req.params.group),
    );

    app.delete(
      '/posts/group/:group',
      {
        schema: {
          tags: ['Posts'],
          summary: 'Delete every post of a group (nothing is deleted on the platforms)',
          params: GroupParamsSchema,
          response: { 200: DeleteResponseSchema, ...errorResponses('CONFLICT') },
        },
      },
      async (req) => service.deleteGroup(req.auth.organizationId, req.params.group),
    );

    app.delete(
      '/posts/:id',
      {
        schema: {
          tags: ['Posts'],
          summary: 'Delete one post with its thread items (nothing is deleted on the platform)',
          params: PostParamsSchema,
          response: { 200: DeleteResponseSchema, ...errorResponses('CONFLICT') },
        },
      },
      async (req) => service.deletePost(req.auth.organizationId, req.params.id),
    );

    app.put(
      '/posts/:id/status',
      {
        schema: {
          tags: ['Posts'],
          summary: '"draft" takes a queued post out of the queue; "schedule" validates and queues a draft or failed post (a draft counts against the plan’s scheduled posts from then on)',
          params: PostParamsSchema,
          body: StatusBodySchema,
          response: { 200: StatusResponseSchema, ...errorResponses('PLAN_LIMIT_REACHED', 'CONFLICT') },
        },
      },
      async (req) => service.changeStatus(req.auth.organizationId, req.params.id, req.body.status),
    );

    app.put(
      '/posts/:id/date',
      {
        schema: {
          tags: ['Posts'],
          summary: 'Extension: move a queued post or draft (with its thread items) to another time; published and failed posts do not move',
          params: PostParamsSchema,
          body: DateBodySchema,
          response: { 200: DateResponseSchema, ...errorResponses('PLAN_LIMIT_REACHED', 'CONFLICT') },
        },
      },
      async (req) => service.reschedule(req.auth.organizationId, req.params.id, req.body.date),
    );

    app.put(
      '/posts/group/:group/date',
      {
        schema: {
          tags: ['Posts'],
          summary: 'Extension: move every post of a group (all its channels, with their thread items) to another time',
          description:
            'The calendar drags a group as one event. The group moves only as a whole: when one of its posts is published or failed, nothing moves (409 naming the channel). Queued posts are queued again for the new time (a past time publishes now); drafts only change date.',
          params: GroupParamsSchema,
          body: DateBodySchema,
          response: { 200: GroupDateResponseSchema, ...errorResponses('PLAN_LIMIT_REACHED', 'CONFLICT') },
        },
      },
      async (req) => service.moveGroup(req.auth.organizationId, req.params.group, req.body.date),
    );

    app.put(
      '/posts/:id/settings',
      {
        schema: {
          tags: ['Posts'],
          summary: 'Replace the platform settings of a queued post or draft',
          params: PostParamsSchema,
          body: SettingsBodySchema,
          response: { 200: SettingsResponseSchema, ...errorResponses('CONFLICT') },
        },
      },
      async (req) => service.replaceSettings(req.auth.organizationId, req.params.id, req.body.settings),
    );

    app.put(
      '/posts/:id/release-id',
      {
        schema: {
          tags: ['Posts'],
          summary: "Record the platform's own id (and URL) of a published or failed post",
          params: PostParamsSchema,
          body: ReleaseIdBodySchema,
          response: { 200: PostDetailSchema, ...errorResponses('CONFLICT') },
        },
      },
      async (req) => service.recordReleaseId(req.auth.organizationId, req.params.id, req.body.releaseId, req.body.releaseURL),
    );

    app.get(
      '/posts/:id/missing',
      {
        schema: {
          tags: ['Posts'],
          summary: 'What still keeps the post from publishing; candidates when its platform id is unknown',
          params: PostParamsSchema,
          response: { 200: MissingResponseSchema, ...errorResponses(...PLATFORM_CALL_ERRORS) },
        },
      },
      async (req) => service.missing(req.auth.organizationId, req.params.id),
    );
  };
}

