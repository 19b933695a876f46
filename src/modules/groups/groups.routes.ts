import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { GroupsService } from './groups.service.js';
import { GroupBodySchema, GroupListSchema, GroupParamsSchema, GroupSchema } from './groups.schemas.js';

export function groupsRoutes(service: GroupsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/groups',
      {
        schema: {
          tags: ['Groups'],
          summary: 'List client groups ("customers")',
          response: { 200: GroupListSchema },
        },
      },
      async (req) => service.listGroups(req.auth.organizationId),
    );

    app.post(
      '/groups',
      {
        schema: {
          tags: ['Groups'],
          summary: 'Create a client group',
          body: GroupBodySchema,
          response: { 201: GroupSchema },
        },
      },
      async (req, reply) => reply.status(201).send(await service.createGroup(req.auth.organizationId, req.body.name)),
    );

    app.put(
      '/groups/:id',
      {
        schema: {
          tags: ['Groups'],
          summary: 'Rename a client group',
          params: GroupParamsSchema,
          body: GroupBodySchema,
          response: { 200: GroupSchema },
        },
      },
      async (req) => service.renameGroup(req.auth.organizationId, req.params.id, req.body.name),
    );

    app.delete(
      '/groups/:id',
      {
        schema: {
          tags: ['Groups'],
          summary: 'Delete a client group (its channels stay, without a group)',
          params: GroupParamsSchema,
          response: { 200: GroupSchema },
        },
      },
      async (req) => service.deleteGroup(req.auth.organizationId, req.params.id),
    );
  };
}
