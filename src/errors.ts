/**
 * Every error code the service answers with, each mapped to one HTTP status. Services throw
 * `AppError(code)`; only the HTTP error handler turns codes into responses.
 */
export const ERROR_CODES = {
  /** Body, query or params failed validation; `fields` names each offending path. */
  VALIDATION_FAILED: 400,
  /** The request could not be read (a client error the framework raised). */
  BAD_REQUEST: 400,
  /** The request body is not valid JSON. */
  MALFORMED_JSON: 400,
  /** The JSON body nests arrays/objects deeper than the limit (64); `fields` names where. */
  BODY_TOO_DEEP: 400,
  /** The URL has malformed percent-encoding (`%E0%A4%A`, a lone `%`). */
  MALFORMED_URL: 400,
  /** A path parameter is longer than the router accepts (1,000 characters). */
  URI_TOO_LONG: 414,
  /** The request's headers are larger than the server accepts. */
  HEADERS_TOO_LARGE: 431,
  /** The client took too long to send the request. */
  REQUEST_TIMEOUT: 408,
  /** A request with a body was sent with no or an unsupported Content-Type. */
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** The request body is larger than the configured limit. */
  PAYLOAD_TOO_LARGE: 413,
  /** No Authorization header (or an empty one). */
  AUTH_MISSING: 401,
  /** The Authorization value is not a known, active API key or access token. */
  AUTH_INVALID: 401,
  /** The Authorization value carries a scheme word ("Bearer x"): send the credential alone. */
  AUTH_SCHEME_NOT_ALLOWED: 401,
  /** Too many failed authentication attempts from this address. */
  AUTH_THROTTLED: 429,
  /** Signing in, or a page that needs a signed-in person, without a valid session. */
  SESSION_REQUIRED: 401,
  /** Wrong email or password (the answer never says which). */
  INVALID_CREDENTIALS: 401,
  /** Too many failed sign-ins (or reset requests) for this account or from this address; `Retry-After` says when to retry. */
  LOGIN_THROTTLED: 429,
  /** A client preview link with a password, opened without it or with a wrong one (`X-Preview-Password`). */
  PREVIEW_PASSWORD_REQUIRED: 401,
  /** A form or cookie-authenticated request without a valid CSRF token, or sent from another site. */
  CSRF_FAILED: 403,
  /** The person's role in the organisation does not allow the action (the message names the role needed). */
  FORBIDDEN: 403,
  /** Queueing a post that an approval rule (or the contributor role) holds for approval: the message names the rule; submit it for approval instead. */
  APPROVAL_REQUIRED: 403,
  /** The OAuth token was granted read access only (`mcp:read`) and the request or tool changes something. */
  INSUFFICIENT_SCOPE: 403,
  /** New accounts are not accepted here (SIGNUP is `off`, or `invite` and no valid invitation was given). */
  SIGNUP_CLOSED: 403,
  /** The organisation's plan does not permit the action; the message names the limit. */
  PLAN_LIMIT_REACHED: 403,
  /** No such object in the caller's organisation (also when it exists in another one). */
  NOT_FOUND: 404,
  /** `POST /generate-video` or `/video/function` names a video provider this deployment does not offer (or offers none). */
  VIDEO_PROVIDER_NOT_AVAILABLE: 404,
  /** No such route. */
  ROUTE_NOT_FOUND: 404,
  /** The HTTP method is not allowed on this route. */
  METHOD_NOT_ALLOWED: 405,
  /** Conflict with the current state of the object. */
  CONFLICT: 409,
  /** The organisation crossed its request budget (API.md §8). */
  RATE_LIMITED: 429,
  /** The platform's OAuth app is not configured on this deployment; the message names the variables. */
  PLATFORM_APP_NOT_CONFIGURED: 400,
  /** This platform cannot be connected or used in this version yet. */
  PLATFORM_NOT_AVAILABLE: 501,
  /** The platform did not answer (or answered with a server error) while we needed it; retry later. */
  PLATFORM_UNREACHABLE: 502,
  /** The platform asked us to slow down while serving this request; `Retry-After` says when to retry. */
  PLATFORM_RATE_LIMITED: 429,
  /** The channel's access is gone (revoked, expired without refresh): reconnect it with `GET /social/{identifier}?refresh=<id>`. */
  CHANNEL_NEEDS_RECONNECT: 409,
  /** The platform refused the request (its message is passed on). */
  PLATFORM_REJECTED: 422,
  /** A video generation failed (its credits were refunded); the message says why. */
  VIDEO_GENERATION_FAILED: 422,
  /** Writing help was asked for while the organisation has no model configured (`PUT /ai/settings`); nothing was sent anywhere. */
  AI_NOT_CONFIGURED: 404,
  /** The organisation's model endpoint failed or answered something unusable; the message says what it answered. */
  AI_UNAVAILABLE: 502,
  /** The organisation's model endpoint did not finish within AI_TIMEOUT_SECONDS. */
  AI_TIMEOUT: 504,
  /** The organisation asked its model more often than AI_RATE_LIMIT per minute; `Retry-After` says when to retry. */
  AI_RATE_LIMITED: 429,
  /** An outside link shortener refused the settings (key, domain) or failed while checking them; the message passes on its words. */
  SHORTENER_REJECTED: 422,
  /** A dependency (database, queue) is not available; the request can be retried. */
  SERVICE_UNAVAILABLE: 503,
  /** Anything unexpected. Details are logged, never returned. */
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { fields?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_CODES[code];
  }
}

/** A 400 naming the fields; its message is the first field's `path: message` (and how many more). */
export function validationError(fields: FieldError[]): AppError {
  const first = fields[0]!;
  const more = fields.length > 1 ? ` (and ${fields.length - 1} more)` : '';
  return new AppError('VALIDATION_FAILED', `${first.path}: ${first.message}${more}`, { fields });
}

/** A 400 naming one field. */
export function fieldError(path: string, message: string): AppError {
  return validationError([{ path, message }]);
}

export function notFound(what: string): AppError {
  return new AppError('NOT_FOUND', `${what} not found`);
}
