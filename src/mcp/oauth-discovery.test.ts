import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers.js';
import { freePort } from '../../test/mcp/oauth-provider.js';

// The discovery an assistant makes before it can ask a person to sign in (MCP authorisation,
// RFC 9728 then RFC 8414 then RFC 7591), step by step over HTTP as any client would.

describe('MCP OAuth discovery', () => {
  let origin = '';
  const { t, orgs } = useTestApp(async () => {
    origin = `http://127.0.0.1:${await freePort()}`;
    return { env: { PUBLIC_URL: origin } };
  }, 'Acme');

  beforeAll(async () => {
    await t.app.listen({ port: Number(new URL(origin).port), host: '127.0.0.1' });
  });

  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } };
  const post = (headers: Record<string, string>) =>
    fetch(`${origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(initialize) });

  it('no credential, or a wrong one: 401 naming the resource metadata and the scopes; from there to a registered client', async () => {
    const expected = `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", scope="mcp:read mcp:write"`;
    const cases: [Record<string, string>, string][] = [
      [{}, 'AUTH_MISSING'],
      [{ authorization: 'Bearer pos_wrongwrongwrongwrongwrongwrongwrongwrong' }, 'AUTH_INVALID'],
      [{ authorization: 'Bearer not-a-key' }, 'AUTH_INVALID'],
    ];
    for (const [headers, code] of cases) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(expected);
      const body = (await res.json()) as { jsonrpc: string; error: { code: number; data: { code: string } } };
      expect(body).toMatchObject({ jsonrpc: '2.0', error: { data: { code } } });
    }
    // a good credential passes: the header is only for those without one
    const ok = await post({ authorization: `Bearer ${orgs.acme.apiKey}` });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('www-authenticate')).toBeNull();

    // RFC 9728: the resource and who issues its tokens
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(expected)![1]!;
    const prm = await fetch(metadataUrl);
    expect(prm.status).toBe(200);
    const resource = (await prm.json()) as { resource: string; authorization_servers: string[]; scopes_supported: string[] };
    expect(resource).toMatchObject({ resource: `${origin}/mcp`, authorization_servers: [origin], scopes_supported: ['mcp:read', 'mcp:write'] });

    // RFC 8414 at the authorisation server the resource names
    const as = await fetch(`${resource.authorization_servers[0]}/.well-known/oauth-authorization-server`);
    expect(as.status).toBe(200);
    const server = (await as.json()) as Record<string, unknown>;
    expect(server).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth/token`,
      registration_endpoint: `${origin}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: expect.arrayContaining(['none']),
      scopes_supported: expect.arrayContaining(['mcp:read', 'mcp:write']),
      authorization_response_iss_parameter_supported: true,
    });

    // RFC 7591: a public client with a loopback redirect, as an assistant on the desktop registers
    const reg = await fetch(String(server.registration_endpoint), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Probe assistant', redirect_uris: ['http://127.0.0.1:33418/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], scope: 'mcp:read mcp:write' }),
    });
    expect(reg.status).toBe(201);
    const client = (await reg.json()) as Record<string, unknown>;
    expect(client).toMatchObject({ client_id: expect.stringMatching(/^tdc_/), client_name: 'Probe assistant', token_endpoint_auth_method: 'none', redirect_uris: ['http://127.0.0.1:33418/callback'] });
    expect(client.client_secret).toBeUndefined();
    // the consent page knows it
    const consent = await fetch(`${origin}/oauth/authorize?client_id=${String(client.client_id)}&response_type=code&code_challenge=${'a'.repeat(43)}&code_challenge_method=S256`, { redirect: 'manual' });
    // not signed in: sent to sign in first (the client and its request are good)
    expect(consent.status).toBe(303);
    expect(consent.headers.get('location')).toMatch(/\/account\/login/);
  });
});
