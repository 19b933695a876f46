import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, ERROR_CODES, type ErrorCode, type FieldError } from '../errors.js';
import { isDatabaseUnavailable } from '../lib/database-unavailable.js';
import type { ErrorBody } from './error-schema.js';

/** Fastify's own error codes, mapped to ours. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'MALFORMED_JSON',
  FST_ERR_BAD_URL: 'MALFORMED_URL',
  FST_ERR_MAX_PARAM_LENGTH: 'URI_TOO_LONG',
};

/** Messages of the framework refusals whose own wording would echo the whole URL back. */
const FRAMEWORK_MESSAGES: Partial<Record<ErrorCode, string>> = {
  MALFORMED_URL: 'The URL has malformed percent-encoding',
  URI_TOO_LONG: 'A path parameter is longer than 1000 characters',
};

const GENERIC_BY_STATUS: Record<number, ErrorCode> = {
  404: 'ROUTE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

interface Mapped {
  code: ErrorCode;
  message: string;
  fields?: FieldError[];
  headers?: Record<string, string>;
}

/** `/posts/0/settings/title` → `posts.0.settings.title`; the root of a part is the part's name. */
function fieldPath(instancePath: string, context: string | undefined): string {
  const path = instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
  return path || (context === 'querystring' ? 'query' : (context ?? 'body'));
}

function validationFields(err: FastifyError): FieldError[] {
  const context = (err as FastifyError & { validationContext?: string }).validationContext;
  return (err.validation ?? []).map((v) => ({ path: fieldPath(v.instancePath, context), message: v.message ?? 'Invalid value' }));
}

export function mapError(err: unknown): Mapped {
  if (err instanceof AppError) {
    return { code: err.code, message: err.message, fields: err.extra.fields, headers: err.extra.headers };
  }
  const e = err as FastifyError;
  if (hasZodFastifySchemaValidationErrors(err) || (Array.isArray(e.validation) && e.validation.length > 0)) {
    const fields = validationFields(e);
    return {
      code: 'VALIDATION_FAILED',
      message: fields.map((f) => `${f.path}: ${f.message}`).join('; '),
      fields,
    };
  }
  const fastifyCode = typeof e.code === 'string' ? FASTIFY_CODES[e.code] : undefined;
  if (fastifyCode) return { code: fastifyCode, message: FRAMEWORK_MESSAGES[fastifyCode] ?? e.message };
  // The database is not there right now (also when drizzle wraps the driver's error, and for a
  // connection that ended under the request): 503 with Retry-After, never a 500.
  if (isDatabaseUnavailable(err)) {
    return { code: 'SERVICE_UNAVAILABLE', message: 'A dependency is unavailable; retry shortly', headers: { 'retry-after': '5' } };
  }
  if (!isResponseSerializationError(err) && typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    // Another client error raised by the framework or a plugin: keep its status, give it our shape.
    return { code: GENERIC_BY_STATUS[e.statusCode] ?? 'BAD_REQUEST', message: e.message };
  }
  return { code: 'INTERNAL', message: 'Internal server error' };
}

export function errorBody(status: number, mapped: Mapped, requestId: string): ErrorBody {
  return {
    statusCode: status,
    error: STATUS_CODES[status] ?? 'Error',
    code: mapped.code,
    message: mapped.message,
    ...(mapped.fields ? { fields: mapped.fields } : {}),
    requestId,
  };
}

export function sendError(req: FastifyRequest, reply: FastifyReply, err: unknown) {
  const mapped = mapError(err);
  const status = ERROR_CODES[mapped.code];
  if (status >= 500) req.log.error({ err }, 'request failed');
  else req.log.info({ code: mapped.code, status }, mapped.message);
  if (mapped.headers) void reply.headers(mapped.headers);
  // Framework refusals (bad URL, over-long parameter) never ran the hook that sets it.
  void reply.header('x-request-id', req.id);
  return reply.status(status).send(errorBody(status, mapped, req.id));
}

export const newRequestId = () => `req-${randomBytes(6).toString('hex')}`;

/** What an incoming `x-request-id` may be to be taken as the request's id: short, and only characters safe in logs and headers. */
const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * The request's id (Fastify's `genReqId`): the caller's `x-request-id` when it is one value of
 * 1–128 safe characters (a proxy or client correlating its logs with ours), else a new one. It is
 * echoed in the `x-request-id` response header, in error bodies (`requestId`) and on every log line
 * of the request (`reqId`).
 */
export function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : newRequestId();
}

/**
 * Refusals of a request Node's HTTP parser could not read (headers too large, a malformed request
 * line, a client too slow to send), written straight to the socket in the one error shape.
 */
export function clientErrorHandler(this: FastifyInstance, err: Error & { code?: string }, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, mapped]: [number, Mapped] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, { code: 'HEADERS_TOO_LARGE', message: 'The request headers are larger than the server accepts' }]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, { code: 'REQUEST_TIMEOUT', message: 'The request took too long to arrive' }]
        : [400, { code: 'BAD_REQUEST', message: 'The request could not be read as HTTP' }];
  const id = newRequestId();
  const body = JSON.stringify(errorBody(status, mapped, id));
  this.log.info({ code: mapped.code, status, err: err.code }, mapped.message);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/**
 * The one error handler, and what answers unknown routes: the calendar app's page for a browser
 * on one of the app's own paths (`spa`), else 404 ROUTE_NOT_FOUND in the error shape.
 */
export function installErrorHandling(app: FastifyInstance, opts: { spa?: { handles(req: FastifyRequest): boolean; sendIndex(reply: FastifyReply): unknown } } = {}) {
  app.setErrorHandler((err, req, reply) => sendError(req, reply, err));
  app.setNotFoundHandler((req, reply) => {
    if (opts.spa?.handles(req)) return opts.spa.sendIndex(reply);
    return sendError(req, reply, new AppError('ROUTE_NOT_FOUND', `Route ${req.method} ${req.url.split('?')[0]} not found`));
  });
}
