import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { describeStatus } from './error-schema.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A request body the route reads itself (a multipart upload streamed by the handler) and so
     * cannot declare as `schema.body` without Fastify validating it: documented only.
     */
    documentedBody?: { contentType: string; schema: Record<string, unknown> };
  }
}

export const API_PREFIX = '/public/v1';

/** Where a self-hosted Postiz serves the same API (its backend sits under `/api`). */
const POSTIZ_SELF_HOSTED_PREFIX = `/api${API_PREFIX}`;

/** The URL as this service routes it: `/api/public/v1/…` is `/public/v1/…`. */
export function servedApiUrl(url: string): string {
  if (!url.startsWith(POSTIZ_SELF_HOSTED_PREFIX)) return url;
  const next = url.charAt(POSTIZ_SELF_HOSTED_PREFIX.length);
  return next === '' || next === '/' || next === '?' ? url.slice('/api'.length) : url;
}

/** OpenAPI 3.1 generated from the route schemas; served as JSON and as an interactive page. */
export async function installOpenApi(app: FastifyInstance, opts: { publicUrl: string; version: string }) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tidings public API',
        version: opts.version,
        description:
          'Plan, schedule and publish social posts. Wire-compatible with the Postiz public API v1. ' +
          'Send the API key (or `pos_` access token) alone in the `Authorization` header, with no scheme word.',
      },
      servers: [{ url: `${opts.publicUrl}${API_PREFIX}` }],
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'Authorization' } },
      },
      security: [{ apiKey: [] }],
    },
    transform: ({ schema, url, ...rest }) => {
      // Only the public API goes in the document, with paths relative to the server URL.
      if (!url.startsWith(`${API_PREFIX}/`) || url === `${API_PREFIX}/openapi.json`) {
        return { schema: { ...schema, hide: true }, url };
      }
      const out = jsonSchemaTransform({ schema, url, ...rest });
      const documented = out.schema as Record<string, unknown> & { response?: Record<string, Record<string, unknown>> };
      // Every response gets a description naming its status (and, for errors, the codes it may carry).
      for (const [status, body] of Object.entries(documented.response ?? {})) {
        documented.response![status] = { ...body, description: describeStatus(Number(status)) };
      }
      const body = rest.route.config?.documentedBody;
      if (body) Object.assign(documented, { body: body.schema, consumes: [body.contentType] });
      return { ...out, url: url.slice(API_PREFIX.length) };
    },
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: `${API_PREFIX}/docs`, staticCSP: true });
  app.get(`${API_PREFIX}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
}
