import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../http/error-schema.js';
import { requestOrigin } from '../../http/origin.js';
import { connectingPersonOf, type ConnectService } from './connect.service.js';
import { BeginConnectQuerySchema, BeginConnectResponseSchema, ConnectCredentialsBodySchema, ConnectCredentialsQuerySchema, IdentifierParams, IntegrationSchema } from './integrations.schemas.js';

export function connectRoutes(service: ConnectService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/social/:identifier',
      {
        schema: {
          tags: ['Integrations'],
          summary: 'Begin connecting a channel',
          description:
            'OAuth platforms answer `{ url }` to open. Credential platforms answer `{ url: null, credentials }` with the JSON Schema of the body to POST to this path.',
          params: IdentifierParams,
          querystring: BeginConnectQuerySchema,
          response: {
            200: BeginConnectResponseSchema,
            ...errorResponses('PLAN_LIMIT_REACHED', 'PLATFORM_NOT_AVAILABLE', 'PLATFORM_UNREACHABLE'),
          },
        },
      },
      // The web app's browser (a session) comes back to the address it is at; an API caller's
      // user to PUBLIC_URL, the only address known to reach them.
      async (req) => service.beginConnect(req.auth.organizationId, req.params.identifier, req.query, { appOrigin: req.auth.session ? requestOrigin(req) : undefined }),
    );

    app.post(
      '/social/:identifier',
      {
        schema: {
          tags: ['Integrations'],
          summary: 'Connect a credential-based channel (verified with the platform before saving)',
          description:
            'With `refresh=<integration id>` the named channel is reconnected with the new credentials (they must be for the same account: 409 otherwise); no second channel is created.',
          params: IdentifierParams,
          querystring: ConnectCredentialsQuerySchema,
          body: ConnectCredentialsBodySchema,
          response: { 201: IntegrationSchema, ...errorResponses('PLAN_LIMIT_REACHED', 'CONFLICT', 'PLATFORM_NOT_AVAILABLE', 'PLATFORM_UNREACHABLE') },
        },
      },
      async (req, reply) => reply.status(201).send(await service.connectWithCredentials(req.auth.organizationId, req.params.identifier, req.body, req.query, connectingPersonOf(req.auth))),
    );
  };
}
