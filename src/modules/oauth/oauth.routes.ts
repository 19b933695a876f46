import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { ERROR_CODES } from '../../errors.js';
import { mapError } from '../../http/error-handler.js';
import type { FailureThrottle } from '../../rate-limit/failure-throttle.js';
import type { ClientsService } from './clients.service.js';
import type { DeviceService } from './device.service.js';
import { OAuthError, readClientCredentials, SCOPES } from './oauth-core.js';
import { GRANT_TYPES, type OauthService } from './oauth.service.js';

type Params = Record<string, string | undefined>;

/** Form or JSON body → string parameters (RFC 6749 uses forms; Postiz clients send JSON). */
function params(req: FastifyRequest): Params {
  const out: Params = {};
  const body = req.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
      if (typeof v === 'string') out[k] = v;
      else if (Array.isArray(v)) throw new OAuthError('invalid_request', `${k} is given more than once`);
    }
  }
  return out;
}

/** Token answers must never be cached (RFC 6749 §5.1). */
function noStore(reply: FastifyReply) {
  return reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' });
}

/** The endpoints an app calls itself (never a person's browser with its cookies). */
const CLIENT_ENDPOINTS = ['/.well-known/oauth-authorization-server', '/oauth/token', '/oauth/revoke', '/oauth/register', '/oauth/device_authorization', '/device/code', '/device/token'];

/**
 * The OAuth 2.1 protocol endpoints (issue 15): server metadata (RFC 8414), token (RFC 6749 §3.2;
 * device codes RFC 8628 §3.4), revocation (RFC 7009), dynamic registration (RFC 7591), device
 * authorisation (RFC 8628 §3.1), and the Postiz CLI's device protocol (`/device/code`,
 * `/device/token`). Errors answer `{ error, error_description }` as those RFCs say.
 */
export function oauthRoutes(deps: { oauth: OauthService; clients: ClientsService; device: DeviceService; issuer: string; dynamicRegistration: boolean; registrationThrottle: FailureThrottle }) {
  const { oauth, clients, device, issuer } = deps;

  return async (app: FastifyInstance) => {
    await app.register(formbody, { bodyLimit: 64 * 1024 });

    // Assistants that run in a browser page (an MCP inspector, a web chat) discover, register and
    // fetch tokens from their own origin. These endpoints authenticate the client, never a
    // cookie, so any origin may call them (without credentials: "*").
    app.addHook('onRequest', async (req, reply) => {
      if (!CLIENT_ENDPOINTS.includes(req.routeOptions.url ?? '')) return;
      void reply.headers({ 'access-control-allow-origin': '*', 'access-control-expose-headers': 'WWW-Authenticate, Retry-After' });
    });
    for (const url of CLIENT_ENDPOINTS) {
      app.options(url, { schema: { hide: true } }, async (_req, reply) =>
        reply
          .headers({
            'access-control-allow-methods': url.startsWith('/.well-known/') ? 'GET' : 'POST',
            'access-control-allow-headers': 'Authorization, Content-Type, MCP-Protocol-Version',
            'access-control-max-age': '86400',
          })
          .status(204)
          .send(),
      );
    }

    app.setErrorHandler(async (err, req, reply) => {
      if (err instanceof OAuthError) {
        if (err.status === 401 && /^Basic\s/i.test(req.headers.authorization ?? '')) void reply.header('www-authenticate', 'Basic realm="tidings"');
        return noStore(reply).status(err.status).send({ error: err.error, error_description: err.description });
      }
      const mapped = mapError(err);
      const status = ERROR_CODES[mapped.code];
      if (status >= 500) {
        req.log.error({ err }, 'OAuth endpoint failed');
        return noStore(reply).status(status).send({ error: 'server_error', error_description: 'Internal server error' });
      }
      if (mapped.headers) void reply.headers(mapped.headers);
      const error = status === 404 ? 'not_found' : status === 429 ? 'slow_down' : 'invalid_request';
      return noStore(reply).status(status).send({ error, error_description: mapped.message });
    });

    app.get('/.well-known/oauth-authorization-server', { schema: { hide: true } }, async (_req, reply) =>
      reply.header('cache-control', 'public, max-age=3600').send({
        issuer,
        authorization_endpoint: `${issuer}/oauth/authorize`,
        token_endpoint: `${issuer}/oauth/token`,
        revocation_endpoint: `${issuer}/oauth/revoke`,
        device_authorization_endpoint: `${issuer}/oauth/device_authorization`,
        ...(deps.dynamicRegistration ? { registration_endpoint: `${issuer}/oauth/register` } : {}),
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: Object.values(GRANT_TYPES),
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        scopes_supported: Object.keys(SCOPES),
        authorization_response_iss_parameter_supported: true,
        service_documentation: `${issuer}/public/v1/docs`,
      }),
    );

    app.post('/oauth/token', { schema: { hide: true } }, async (req, reply) => {
      const body = params(req);
      const tokens = await oauth.token(readClientCredentials(req.headers.authorization, body), body, async (client, b) => {
        const { api_url: _apiUrl, ...issued } = await device.poll(b.device_code, 'rfc8628', client);
        return issued;
      });
      return noStore(reply).send(tokens);
    });

    app.post('/oauth/revoke', { schema: { hide: true } }, async (req, reply) => {
      const body = params(req);
      await oauth.revoke(readClientCredentials(req.headers.authorization, body), body);
      return noStore(reply).status(200).send();
    });

    app.post('/oauth/device_authorization', { schema: { hide: true } }, async (req, reply) => {
      const body = params(req);
      const client = await device.authenticate(readClientCredentials(req.headers.authorization, body));
      return noStore(reply).send(await device.authorize(client, body.scope));
    });

    app.post('/oauth/register', { schema: { hide: true } }, async (req, reply) => {
      const keys = [`register:ip:${req.ip}`];
      const wait = await deps.registrationThrottle.waitSeconds(keys);
      if (wait > 0) {
        void reply.header('retry-after', String(wait));
        throw new OAuthError('slow_down', `Too many registrations from this address; retry in ${wait} s`, 429);
      }
      await deps.registrationThrottle.recordFailure(keys);
      return noStore(reply).status(201).send(await clients.register(req.body ?? {}));
    });

    // The Postiz CLI (`postiz auth:login` with POSTIZ_AUTH_SERVER pointing here).
    app.post('/device/code', { schema: { hide: true } }, async (_req, reply) => noStore(reply).send(await device.startForPostizCli()));

    app.post('/device/token', { schema: { hide: true } }, async (req, reply) => {
      const body = params(req);
      const issued = await device.poll(body.device_code, 'postiz');
      return noStore(reply).send({ access_token: issued.access_token, api_url: issued.api_url, organization_id: issued.organization_id, token_type: issued.token_type, scope: issued.scope });
    });
  };
}
