import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { AuthContext, AuthService } from '../modules/auth/auth.service.js';
import { authInfoOf, type McpServerFactory } from './server.js';

export interface McpTransportOptions {
  factory: McpServerFactory;
  auth: AuthService;
  clock: Clock;
  /** PUBLIC_URL: the resource the OAuth metadata names, and an origin browsers may call from */
  publicUrl: string;
  /** other origins a browser-based assistant may call /mcp from (DNS-rebinding guard) */
  allowedOrigins: string[];
  /** sessions (`Mcp-Session-Id`); off: every request is served on its own (several API processes without sticky routing) */
  sessions: { enabled: boolean; idleMs: number; max: number };
}

/** The paths of the protected-resource metadata (RFC 9728 §3.1: the resource's path after the well-known name). */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

const SESSIONS_PER_CREDENTIAL = 16;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  credentialId: string;
  lastSeen: number;
}

/** A JSON-RPC error answer outside any transport (before one exists, or for a refused request). */
function rpcError(reply: FastifyReply, status: number, code: number, message: string, data?: unknown) {
  return reply
    .status(status)
    .header('content-type', 'application/json')
    .send({ jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id: null });
}

/**
 * The MCP front door (issue 27): Streamable HTTP at `/mcp` and `/mcp/{apiKey}` (sessions, and
 * stateless JSON answers for clients that keep none), the old HTTP+SSE transport at
 * `/sse/{apiKey}` + `/message/{apiKey}`, and the RFC 9728 metadata that sends an assistant
 * without a credential to this service's OAuth server. Credentials are the API's: an API key or
 * `pos_` token in `Authorization` (alone or after `Bearer`) or in the path.
 */
export function mcpTransports(opts: McpTransportOptions) {
  const { factory, auth } = opts;
  const resource = `${opts.publicUrl}/mcp`;
  const metadataUrl = `${opts.publicUrl}${RESOURCE_METADATA_PATH}/mcp`;
  const allowedOrigins = new Set([new URL(opts.publicUrl).origin, ...opts.allowedOrigins.map((o) => new URL(o).origin)]);
  const sessions = new Map<string, Session>();
  const sseStreams = new Map<string, { transport: SSEServerTransport; server: Server; credentialId: string }>();

  const metadata = () => ({
    resource,
    authorization_servers: [opts.publicUrl],
    scopes_supported: ['mcp:read', 'mcp:write'],
    bearer_methods_supported: ['header'],
    resource_name: 'Tidings MCP server',
    resource_documentation: `${opts.publicUrl}/public/v1/docs`,
  });

  /** The credential of the request, or an answer (401 with the discovery header, 429) already sent. */
  async function authenticate(req: FastifyRequest, reply: FastifyReply, pathKey: string | undefined): Promise<{ context: AuthContext; token: string } | undefined> {
    const header = req.headers.authorization?.trim() ?? '';
    const token = pathKey ?? header.replace(/^bearer\s+/i, '');
    try {
      const context = await auth.authenticate(token, req.ip);
      // The sandbox key's limits are kept by the REST API's routes (http/sandbox-scope.ts), which tools do not pass through.
      if (context.sandbox) throw new AppError('FORBIDDEN', 'Sandbox keys (tdk_test_…) work on the REST API only; use a live key or OAuth sign-in for MCP');
      return { context, token };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.extra.headers) void reply.headers(err.extra.headers);
      if (err.status === 401) {
        void reply.header('www-authenticate', `Bearer resource_metadata="${metadataUrl}", scope="mcp:read mcp:write"`);
      }
      await rpcError(reply, err.status, -32001, err.message, { code: err.code });
      return undefined;
    }
  }

  /**
   * Browsers send Origin; a page of another site must not reach a local server through DNS rebinding.
   * An allowed page may read the answer (CORS), including the session and discovery headers.
   */
  function originRefused(req: FastifyRequest, reply: FastifyReply): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return false;
    if (allowedOrigins.has(origin)) {
      // (on the raw response: hijacked answers are written by the SDK, which keeps these)
      reply.raw.setHeader('access-control-allow-origin', origin);
      reply.raw.setHeader('access-control-expose-headers', 'mcp-session-id, mcp-protocol-version, www-authenticate');
      reply.raw.setHeader('vary', 'Origin');
      return false;
    }
    void rpcError(reply, 403, -32000, `Origin ${origin} may not call this MCP server (allow it with MCP_ALLOWED_ORIGINS)`);
    return true;
  }

  function parseBody(req: FastifyRequest, reply: FastifyReply): { ok: true; body: unknown } | { ok: false } {
    const raw = req.body;
    if (raw === undefined || raw === '' || raw === null) return { ok: true, body: undefined };
    try {
      return { ok: true, body: JSON.parse(raw as string) as unknown };
    } catch {
      void rpcError(reply, 400, -32700, 'Parse error: the body is not JSON');
      return { ok: false };
    }
  }

  function sweep(now: number) {
    for (const [id, s] of sessions) {
      if (now - s.lastSeen > opts.sessions.idleMs) void closeSession(id, s);
    }
  }

  /**
   * A client that never sends back the session it was given (stateless by habit) leaves one behind
   * at every initialize: past SESSIONS_PER_CREDENTIAL, the credential's least recently used go.
   */
  function limitPerCredential(credentialId: string) {
    const own = [...sessions].filter(([, s]) => s.credentialId === credentialId).sort(([, a], [, b]) => a.lastSeen - b.lastSeen);
    for (const [id, s] of own.slice(0, Math.max(0, own.length - SESSIONS_PER_CREDENTIAL))) void closeSession(id, s);
  }

  async function closeSession(id: string, s: Session) {
    sessions.delete(id);
    await s.transport.close().catch(() => undefined);
    await s.server.close().catch(() => undefined);
  }

  function attach(req: FastifyRequest, context: AuthContext, token: string): IncomingMessage & { auth: AuthInfo } {
    const raw = req.raw as IncomingMessage & { auth: AuthInfo };
    raw.auth = authInfoOf(context, token);
    return raw;
  }

  async function streamable(req: FastifyRequest, reply: FastifyReply, pathKey: string | undefined) {
    if (originRefused(req, reply)) return reply;
    const caller = await authenticate(req, reply, pathKey);
    if (!caller) return reply;
    const parsed = parseBody(req, reply);
    if (!parsed.ok) return reply;
    const now = opts.clock.now();
    sweep(now);
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string' && sessionId !== '') {
      const session = sessions.get(sessionId);
      // another credential's session is not found either: a session belongs to whoever opened it
      if (!session || session.credentialId !== caller.context.credential.id) {
        return rpcError(reply, 404, -32001, 'Session not found: it ended or belongs to another credential; initialize a new one');
      }
      session.lastSeen = now;
      req.server.inflight.hijacked(reply.raw, { stream: req.method === 'GET' });
      reply.hijack();
      await session.transport.handleRequest(attach(req, caller.context, caller.token), reply.raw, parsed.body);
      return reply;
    }
    if (req.method !== 'POST') {
      void reply.header('allow', 'POST');
      return rpcError(reply, 405, -32000, 'GET and DELETE need an Mcp-Session-Id (initialize a session with POST first)');
    }
    const opensSession = opts.sessions.enabled && (Array.isArray(parsed.body) ? parsed.body.some(isInitializeRequest) : isInitializeRequest(parsed.body));
    if (opensSession && sessions.size >= opts.sessions.max) {
      void reply.header('retry-after', '60');
      return rpcError(reply, 503, -32000, 'Too many open MCP sessions on this server; retry later, or call without a session');
    }
    const server = factory.create();
    const transport = new StreamableHTTPServerTransport(
      opensSession
        ? {
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => {
              sessions.set(id, { transport, server, credentialId: caller.context.credential.id, lastSeen: opts.clock.now() });
              limitPerCredential(caller.context.credential.id);
            },
            onsessionclosed: (id) => {
              const s = sessions.get(id);
              if (s) void closeSession(id, s);
            },
          }
        : { sessionIdGenerator: undefined, enableJsonResponse: true },
    );
    await server.connect(transport);
    if (!opensSession) {
      reply.raw.once('close', () => {
        void transport.close();
        void server.close();
      });
    }
    req.server.inflight.hijacked(reply.raw);
    reply.hijack();
    await transport.handleRequest(attach(req, caller.context, caller.token), reply.raw, parsed.body);
    return reply;
  }

  return async (app: FastifyInstance) => {
    // MCP bodies are JSON-RPC: a body that is not JSON is a JSON-RPC parse error, not the API's 400
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 4 * 1024 * 1024 }, (_req, body, done) => done(null, body));

    app.addHook('preClose', async () => {
      await Promise.all([...sessions].map(([id, s]) => closeSession(id, s)));
      await Promise.all([...sseStreams.values()].map(async (s) => s.server.close().catch(() => undefined)));
    });

    for (const path of [RESOURCE_METADATA_PATH, `${RESOURCE_METADATA_PATH}/mcp`]) {
      // public and read by assistants running in web pages too
      app.get(path, { schema: { hide: true } }, async (_req, reply) =>
        reply.headers({ 'cache-control': 'public, max-age=3600', 'access-control-allow-origin': '*' }).send(metadata()),
      );
    }

    // CORS preflight of a browser-based assistant (an allowed origin only)
    for (const url of ['/mcp', '/mcp/:apiKey']) {
      app.options(url, { schema: { hide: true } }, async (req, reply) => {
        if (originRefused(req, reply)) return reply;
        return reply
          .headers({
            'access-control-allow-methods': 'GET, POST, DELETE',
            'access-control-allow-headers': 'authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id',
            'access-control-max-age': '600',
          })
          .status(204)
          .send();
      });
    }

    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      app.route({ method, url: '/mcp', schema: { hide: true }, handler: (req, reply) => streamable(req, reply, undefined) });
      app.route({
        method,
        url: '/mcp/:apiKey',
        schema: { hide: true },
        handler: (req, reply) => streamable(req, reply, (req.params as { apiKey: string }).apiKey),
      });
    }

    // The old HTTP+SSE transport (protocol 2024-11-05), as the reference serves it.
    app.get('/sse/:apiKey', { schema: { hide: true } }, async (req, reply) => {
      if (originRefused(req, reply)) return reply;
      const { apiKey } = req.params as { apiKey: string };
      const caller = await authenticate(req, reply, apiKey);
      if (!caller) return reply;
      const transport = new SSEServerTransport(`/message/${encodeURIComponent(apiKey)}`, reply.raw);
      const server = factory.create();
      sseStreams.set(transport.sessionId, { transport, server, credentialId: caller.context.credential.id });
      transport.onclose = () => {
        sseStreams.delete(transport.sessionId);
      };
      req.server.inflight.hijacked(reply.raw, { stream: true });
      reply.hijack();
      await server.connect(transport);
      return reply;
    });

    app.post('/message/:apiKey', { schema: { hide: true } }, async (req, reply) => {
      if (originRefused(req, reply)) return reply;
      const { apiKey } = req.params as { apiKey: string };
      const caller = await authenticate(req, reply, apiKey);
      if (!caller) return reply;
      const sessionId = (req.query as { sessionId?: string }).sessionId;
      const stream = sessionId ? sseStreams.get(sessionId) : undefined;
      if (!stream || stream.credentialId !== caller.context.credential.id) {
        return rpcError(reply, 404, -32001, 'No open SSE stream with this sessionId: open GET /sse/{apiKey} first');
      }
      const parsed = parseBody(req, reply);
      if (!parsed.ok) return reply;
      req.server.inflight.hijacked(reply.raw);
      reply.hijack();
      await stream.transport.handlePostMessage(attach(req, caller.context, caller.token), reply.raw, parsed.body);
      return reply;
    });
  };
}
