import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { openApiWebhooks } from '../core/webhooks/event-schemas.js';
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

const integer = (description: string) => ({ type: 'integer', minimum: 0, description });

/** API.md §8: the sliding-log budget's headers, on every answer to an authenticated request. */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': integer('Requests the organisation may make per window (its plan’s rate limit)'),
  'RateLimit-Remaining': integer('Requests left in the window after this one'),
  'RateLimit-Reset': integer('Seconds until the oldest counted request leaves the window'),
  'X-RateLimit-Limit': integer('Same as RateLimit-Limit'),
  'X-RateLimit-Remaining': integer('Same as RateLimit-Remaining'),
  'X-RateLimit-Reset': integer('Same as RateLimit-Reset'),
};
const RETRY_AFTER = { 'Retry-After': integer('Seconds to wait before trying again') };

/**
 * The headers a route's answer with `status` carries: the rate-limit headers unless the request
 * was refused before it was counted (401, 414); `Retry-After` with 429 and 503; on POST /posts,
 * `Idempotent-Replayed` when an `Idempotency-Key` replayed the first answer.
 */
export function documentedHeaders(method: string, url: string, status: number): Record<string, unknown> | undefined {
  const headers: Record<string, unknown> = status === 401 || status === 414 ? {} : { ...RATE_LIMIT_HEADERS };
  if (status === 429 || status === 503) Object.assign(headers, RETRY_AFTER);
  if (method === 'POST' && url === `${API_PREFIX}/posts` && status >= 200 && status < 300) {
    headers['Idempotent-Replayed'] = { type: 'string', enum: ['true'], description: 'Present when this is the stored answer to an earlier request with the same Idempotency-Key' };
  }
  return Object.keys(headers).length > 0 ? headers : undefined;
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
          'Send the API key (or `pos_` access token) alone in the `Authorization` header, with no scheme word.\n\n' +
          '**Rate limits.** Requests made with an API key or a `pos_` token count against the organisation’s plan limit ' +
          '(90 per hour by default; `RateLimit-*` headers say what is left). The calendar web app served at `/` calls this same API ' +
          'with the first-party session cookie (and `X-CSRF-Token` on writes); those calls are **not** counted against the ' +
          'organisation’s budget: each signed-in person has a separate, generous one (`APP_RATE_LIMIT` per `APP_RATE_WINDOW_SECONDS`, ' +
          'default 600 per minute). The routes tagged Web app (`/me`, `/members`, `/invitations`, `/api-keys`, `/approved-apps`) answer ' +
          'only that session: an API key or token gets 403 FORBIDDEN.',
      },
      servers: [{ url: `${opts.publicUrl}${API_PREFIX}` }],
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'Authorization' } },
      },
      security: [{ apiKey: [] }],
      // OpenAPI 3.1's event catalogue: what this service POSTs to webhook receivers.
      webhooks: openApiWebhooks(),
    },
    transform: ({ schema, url, ...rest }) => {
      // Only the public API goes in the document, with paths relative to the server URL.
      if (!url.startsWith(`${API_PREFIX}/`) || url === `${API_PREFIX}/openapi.json`) {
        return { schema: { ...schema, hide: true }, url };
      }
      const out = jsonSchemaTransform({ schema, url, ...rest });
      const documented = out.schema as Record<string, unknown> & { response?: Record<string, Record<string, unknown>> };
      // Every response gets a description naming its status (and, for errors, the codes it may
      // carry) and the headers it comes with.
      const methods = [rest.route.method].flat();
      for (const [status, body] of Object.entries(documented.response ?? {})) {
        const headers = documentedHeaders(methods[0] ?? 'GET', url, Number(status));
        documented.response![status] = { ...body, description: describeStatus(Number(status)), ...(headers ? { headers } : {}) };
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
