import { STATUS_CODES } from 'node:http';
import type { RouteOptions } from 'fastify';
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../errors.js';

/** The one error body of API.md §3. */
export const ErrorBodySchema = z
  .object({
    statusCode: z.number().int(),
    error: z.string().describe('HTTP reason phrase'),
    code: z.string().describe('stable machine-readable code, e.g. VALIDATION_FAILED'),
    message: z.string(),
    fields: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('each offending field by path (validation errors)'),
    requestId: z.string(),
  })
  .meta({ id: 'Error' });

export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/**
 * The error statuses a route answers beyond those every API route can (`completeResponses`), named
 * by the codes it throws: `{ 200: X, ...errorResponses('NOT_FOUND', 'CONFLICT') }`.
 */
export function errorResponses<const C extends ErrorCode>(...codes: C[]): { [K in (typeof ERROR_CODES)[C]]: typeof ErrorBodySchema } {
  return Object.fromEntries(codes.map((c) => [ERROR_CODES[c], ErrorBodySchema])) as { [K in (typeof ERROR_CODES)[C]]: typeof ErrorBodySchema };
}

/** What a route that calls its channel's platform can answer when the platform fails. */
export const PLATFORM_CALL_ERRORS = ['CHANNEL_NEEDS_RECONNECT', 'PLATFORM_REJECTED', 'PLATFORM_NOT_AVAILABLE', 'PLATFORM_UNREACHABLE'] as const;

const METHODS_WITHOUT_BODY = new Set(['GET', 'HEAD']);

/**
 * The statuses every route of the authenticated API can answer whatever it does, added to its
 * response schemas when it is registered (an `onRoute` hook), so the OpenAPI document and the
 * serialiser both know them: authentication (401), the rate limit and failed-auth throttle (429),
 * request checks (400: query and body validation, unstorable text, malformed URLs), a dependency
 * down (503) and the unexpected (500); the web app's session calls (403: no CSRF token, or no
 * organisation to work in); with path parameters, objects not found (404) and
 * over-long parameters (414); with a body, its size (413) and type (415).
 */
export function completeResponses(route: RouteOptions) {
  const schema = (route.schema ??= {});
  if (schema.hide) return;
  const response = (schema.response ??= {}) as Record<string, unknown>;
  const add = (code: ErrorCode) => {
    response[ERROR_CODES[code]] ??= ErrorBodySchema;
  };
  for (const code of ['VALIDATION_FAILED', 'AUTH_MISSING', 'CSRF_FAILED', 'RATE_LIMITED', 'INTERNAL', 'SERVICE_UNAVAILABLE'] as const) add(code);
  if (route.url.includes(':')) {
    add('NOT_FOUND');
    add('URI_TOO_LONG');
  }
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (methods.some((m) => !METHODS_WITHOUT_BODY.has(m))) {
    add('PAYLOAD_TOO_LARGE');
    add('UNSUPPORTED_MEDIA_TYPE');
  }
}

/** `400` → "Bad Request. `code` is one of: VALIDATION_FAILED, …" for the OpenAPI document. */
export function describeStatus(status: number): string {
  const codes = Object.entries(ERROR_CODES)
    .filter(([, s]) => s === status)
    .map(([c]) => `\`${c}\``);
  const reason = STATUS_CODES[status] ?? 'Error';
  if (codes.length === 0 || status < 400) return reason;
  return `${reason}. \`code\` is ${codes.length === 1 ? codes[0] : `one of ${codes.join(', ')}`}.`;
}
