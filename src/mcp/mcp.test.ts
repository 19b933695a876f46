import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, useTestApp } from '../../test/helpers.js';
import { callError, callOk, connectStreamable } from '../../test/mcp/mcp-client.js';
import { oauthAccessTokens } from '../db/schema/index.js';
import { hashCredential, OAUTH_TOKEN_PREFIX, visiblePrefix } from '../lib/tokens.js';

const { t, orgs } = useTestApp({ env: { PUBLIC_URL: 'http://127.0.0.1:1' } }, 'Acme', 'Beta');
const limited = useTestApp({ env: { API_RATE_LIMIT: '4', API_RATE_WINDOW_SECONDS: '3600' } }, 'Small');
const stateless = useTestApp({ env: { MCP_SESSIONS: 'false' } }, 'Solo');
let origin: string;

beforeAll(async () => {
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
});

/** An OAuth access token of the organisation with the given scope, as the token endpoint stores one. */
async function tokenWithScope(organizationId: string, scope: string) {
  const token = `${OAUTH_TOKEN_PREFIX}${randomBytes(30).toString('base64url')}`;
  await t.deps.database.db.insert(oauthAccessTokens).values({ organizationId, tokenHash: hashCredential(token), prefix: visiblePrefix(token), scope });
  return token;
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const rpc = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('MCP over Streamable HTTP', () => {
  it('lists tools with schemas and annotations, and calls one with the API key after Bearer', async () => {
    const client = await connectStreamable(`${origin}/mcp`, `Bearer ${orgs.acme.apiKey}`);
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(['list_channels', 'create_posts', 'list_posts', 'delete_post']));
    const del = tools.find((x) => x.name === 'delete_post')!;
    expect(del.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(del.inputSchema).toMatchObject({ type: 'object', required: ['postId'] });
    expect(tools.find((x) => x.name === 'list_posts')!.annotations).toMatchObject({ readOnlyHint: true });
    const listed = await callOk<{ channels: unknown[] }>(client, 'list_channels');
    expect(listed.channels).toEqual([]);
    await client.close();
  });

  it('a bad argument is a tool result with isError naming the argument, never a protocol error', async () => {
    const client = await connectStreamable(`${origin}/mcp`, orgs.acme.apiKey);
    const bad = await callError(client, 'list_posts', { startDate: 'yesterday', endDate: '2026-01-01T00:00:00Z' });
    expect(bad).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, fields: [{ path: 'startDate', message: expect.stringContaining('ISO 8601') }] });
    const nested = await callError(client, 'create_posts', { type: 'schedule', date: '2030-01-01T00:00:00Z', posts: [{ integration: {}, value: [] }] });
    expect(nested.fields?.map((f) => f.path).sort()).toEqual(['posts.0.integration.id', 'posts.0.value']);
    const unknown = await callError(client, 'get_post', { postId: 'x', colour: 'blue' });
    expect(unknown.fields).toEqual([{ path: 'colour', message: expect.stringContaining('postId') }]);
    const missing = await callError(client, 'get_post', {});
    expect(missing.fields?.map((f) => f.path)).toEqual(['postId']);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  it('no or a wrong credential: 401 with the RFC 9728 discovery header; the metadata names the OAuth server', async () => {
    for (const headers of [{}, { authorization: 'Bearer tdk_wrong' }] as Record<string, string>[]) {
      const res = await rpc(`${origin}/mcp`, INITIALIZE, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", scope="mcp:read mcp:write"');
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
    }
    expect((await rpc(`${origin}/mcp/tdk_wrong`, INITIALIZE)).status).toBe(401);
    const metadata = await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ resource: 'http://127.0.0.1:1/mcp', authorization_servers: ['http://127.0.0.1:1'], scopes_supported: ['mcp:read', 'mcp:write'] });
  });

  it('refuses a browser page of another origin (DNS rebinding), a body that is not JSON, and a session of another credential', async () => {
    const foreign = await rpc(`${origin}/mcp`, INITIALIZE, { authorization: orgs.acme.apiKey, origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    const allowed = await rpc(`${origin}/mcp`, INITIALIZE, { authorization: orgs.acme.apiKey, origin: 'http://127.0.0.1:1' });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:1');
    expect(allowed.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
    const preflight = await fetch(`${origin}/mcp`, { method: 'OPTIONS', headers: { origin: 'http://127.0.0.1:1', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-session-id');
    expect((await fetch(`${origin}/mcp`, { method: 'OPTIONS', headers: { origin: 'http://evil.example' } })).status).toBe(403);
    const sessionId = allowed.headers.get('mcp-session-id')!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const notJson = await rpc(`${origin}/mcp`, '{"jsonrpc":', { authorization: orgs.acme.apiKey });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { code: -32700 } });
    const borrowed = await rpc(`${origin}/mcp`, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { authorization: orgs.beta.apiKey, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' });
    expect(borrowed.status).toBe(404);
    const own = await rpc(`${origin}/mcp`, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { authorization: orgs.acme.apiKey, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' });
    expect(own.status).toBe(200);
    const ended = await fetch(`${origin}/mcp`, { method: 'DELETE', headers: { authorization: orgs.acme.apiKey, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } });
    expect(ended.status).toBe(200);
    expect((await rpc(`${origin}/mcp`, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { authorization: orgs.acme.apiKey, 'mcp-session-id': sessionId })).status).toBe(404);
  });

  it('a token granted mcp:read alone reads but changes nothing, over MCP and over the API', async () => {
    const token = await tokenWithScope(orgs.acme.id, 'mcp:read');
    const client = await connectStreamable(`${origin}/mcp`, `Bearer ${token}`);
    await callOk(client, 'list_channels');
    for (const [tool, args] of [
      ['delete_post', { postId: 'any' }],
      ['create_posts', { type: 'draft', date: '2030-01-01T00:00:00Z', posts: [] }],
      ['upload_media_from_url', { url: 'https://example.com/a.png' }],
    ] as const) {
      const err = await callError(client, tool, args);
      expect(err, tool).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403, message: expect.stringContaining('mcp:write') });
    }
    await client.close();
    expect((await call(t.app, token, { method: 'GET', url: '/public/v1/integrations' })).statusCode).toBe(200);
    expectError(await call(t.app, token, { method: 'DELETE', url: '/public/v1/posts/anything' }), 403, 'INSUFFICIENT_SCOPE');
    const writer = await tokenWithScope(orgs.acme.id, 'mcp:read mcp:write');
    const full = await connectStreamable(`${origin}/mcp`, writer);
    expect((await callError(full, 'delete_post', { postId: 'any' })).code).toBe('NOT_FOUND');
    await full.close();
  });
});

describe('MCP calls and API calls share the organisation budget', () => {
  it('tool calls count like requests; past the limit the result says when to retry', async () => {
    const at = await limited.t.app.listen({ port: 0, host: '127.0.0.1' });
    const client = await connectStreamable(`${at}/mcp`, limited.orgs.small.apiKey);
    await callOk(client, 'list_channels');
    await callOk(client, 'list_channels');
    expect((await call(limited.t.app, limited.orgs.small.apiKey, { method: 'GET', url: '/public/v1/integrations' })).statusCode).toBe(200);
    await callOk(client, 'list_channels');
    const refused = await callError(client, 'list_channels');
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(refused.retryAfterSeconds).toBeGreaterThan(3500);
    await expect(client.readResource({ uri: 'tidings://channels' })).rejects.toThrow(/Rate limit/);
    expectError(await call(limited.t.app, limited.orgs.small.apiKey, { method: 'GET', url: '/public/v1/integrations' }), 429, 'RATE_LIMITED');
    await client.close();
  });
});

describe('MCP_SESSIONS=false', () => {
  it('initialize opens no session, and every request is answered on its own as plain JSON', async () => {
    const at = await stateless.t.app.listen({ port: 0, host: '127.0.0.1' });
    const key = stateless.orgs.solo.apiKey;
    const init = await rpc(`${at}/mcp`, INITIALIZE, { authorization: key });
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeNull();
    expect(init.headers.get('content-type')).toContain('application/json');
    expect(await init.json()).toMatchObject({ result: { serverInfo: { name: 'tidings' }, capabilities: { tools: {} } } });
    const called = await rpc(`${at}/mcp`, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'check_connection', arguments: {} } }, { authorization: key, 'mcp-protocol-version': '2025-06-18' });
    expect(await called.json()).toMatchObject({ id: 2, result: { structuredContent: { connected: false } } });
    const get = await fetch(`${at}/mcp`, { headers: { authorization: key, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    const client = await connectStreamable(`${at}/mcp`, key);
    expect((await callOk<{ connected: boolean }>(client, 'check_connection')).connected).toBe(false);
    await client.close();
  });
});
