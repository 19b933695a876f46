import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { signUp, type Browser } from '../../../test/browser.js';
import { call, useTestApp } from '../../../test/helpers.js';
import { freePort, MemoryOAuthProvider } from '../../../test/mcp/oauth-provider.js';
import { authorizeUrl, consent, oauthPost, pkce } from '../../../test/oauth-client.js';

// What an MCP client built on the SDK does when an MCP server answers 401: discovery (RFC 9728,
// RFC 8414), dynamic registration as a public client with a loopback redirect, an authorisation
// request and a token request that both name the resource (RFC 8707), the scopes the resource
// metadata lists. These tests run that flow against this server, and each rule it relies on.

const REDIRECT = 'http://127.0.0.1:5555/callback';

interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
}

describe('OAuth for MCP clients (the SDK flow)', () => {
  let origin = '';
  let owner: Browser;
  const { t } = useTestApp(async () => {
    origin = `http://127.0.0.1:${await freePort()}`;
    return { env: { PUBLIC_URL: origin, SIGNUP: 'open', API_RATE_LIMIT: '100000' } };
  });

  beforeAll(async () => {
    await t.app.listen({ port: Number(new URL(origin).port), host: '127.0.0.1' });
    owner = await signUp(t.app, { email: 'owner@example.test', organization: 'Acme' });
  });

  /** Registers like the SDK does (public client, loopback redirect): the client id. */
  async function registerPublic(redirect = REDIRECT, name = 'Claude') {
    const res = await t.app.inject({
      method: 'POST',
      url: '/oauth/register',
      payload: { client_name: name, redirect_uris: [redirect], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], scope: 'mcp:read mcp:write' },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<{ client_id: string }>().client_id;
  }

  function request(clientId: string, extra: Record<string, string | undefined> = {}) {
    const { verifier, challenge } = pkce();
    return { verifier, q: { client_id: clientId, redirect_uri: REDIRECT, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 'st', scope: 'mcp:read mcp:write', resource: `${origin}/mcp`, ...extra } };
  }

  async function exchange(clientId: string, code: string, verifier: string, extra: Record<string, string> = {}) {
    return oauthPost(t.app, '/oauth/token', { grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT, resource: `${origin}/mcp`, ...extra });
  }

  it("the SDK's auth(): discovers, registers, sends resource and the metadata's scopes; the callback carries iss; the code gives a read-and-write token", async () => {
    const provider = new MemoryOAuthProvider(REDIRECT, 'Claude Desktop');
    expect(await auth(provider, { serverUrl: `${origin}/mcp` })).toBe('REDIRECT');
    const url = provider.authorizationUrls[0]!;
    expect(url.origin + url.pathname).toBe(`${origin}/oauth/authorize`);
    expect(url.searchParams.get('resource')).toBe(`${origin}/mcp`);
    expect(url.searchParams.get('scope')).toBe('mcp:read mcp:write');
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);

    const page = await owner.get(`${url.pathname}${url.search}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<strong>Claude Desktop</strong> asks to act for one of your organisations');
    // the person chooses read only or read and write; what the app asked for is checked
    expect(page.body).toContain('<legend>What may Claude Desktop do?</legend>');
    expect(page.body).toContain('<input type="radio" name="access" value="read">');
    expect(page.body).toContain('<input type="radio" name="access" value="write" checked>');
    expect(page.body).toContain(`<input type="hidden" name="resource" value="${origin}/mcp">`);

    const back = await consent(owner, Object.fromEntries(url.searchParams));
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe(provider.lastState);
    // RFC 9207: the issuer the client discovered, so it can tell which server answered
    const metadata = (await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server' })).json<{ issuer: string }>();
    expect(back.searchParams.get('iss')).toBe(metadata.issuer);

    expect(await auth(provider, { serverUrl: `${origin}/mcp`, authorizationCode: back.searchParams.get('code')! })).toBe('AUTHORIZED');
    expect(provider.stored).toMatchObject({ token_type: 'Bearer', scope: 'mcp:read mcp:write', access_token: expect.stringMatching(/^pos_/), refresh_token: expect.stringMatching(/^por_/) });
    const made = await call(t.app, provider.stored!.access_token, { method: 'POST', url: '/public/v1/groups', payload: { name: 'Made by the assistant' } });
    expect(made.statusCode, made.body).toBe(201);

    // the SDK refreshes with the resource too
    const before = provider.stored!.access_token;
    expect(await auth(provider, { serverUrl: `${origin}/mcp` })).toBe('AUTHORIZED');
    expect(provider.stored!.access_token).not.toBe(before);
  });

  it('the person approves read only: the token carries mcp:read alone and cannot change anything', async () => {
    const clientId = await registerPublic();
    const { verifier, q } = request(clientId);
    const back = await consent(owner, q, { access: 'read' });
    const res = await exchange(clientId, back.searchParams.get('code')!, verifier);
    expect(res.statusCode, res.body).toBe(200);
    const tokens = res.json<Tokens>();
    expect(tokens.scope).toBe('mcp:read');
    expect((await call(t.app, tokens.access_token, { method: 'GET', url: '/public/v1/groups' })).statusCode).toBe(200);
    const refused = await call(t.app, tokens.access_token, { method: 'POST', url: '/public/v1/groups', payload: { name: 'Nope' } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json<{ code: string }>().code).toBe('INSUFFICIENT_SCOPE');
    // the approved-apps list says what was granted
    const listed = (await owner.api('GET', '/public/v1/approved-apps')).json<{ clientName: string; scopes: { name: string }[] }[]>();
    expect(listed.filter((g) => g.clientName === 'Claude').map((g) => g.scopes.map((s) => s.name))).toContainEqual(['mcp:read']);
  });

  it('the choice is required when offered, and only read or write: a form without it, or with another value, grants nothing', async () => {
    const clientId = await registerPublic();
    const { q } = request(clientId);
    await owner.get(authorizeUrl(q));
    const hidden = owner.hiddenFields('/oauth/authorize');
    const org = /<option value="([^"]+)"/.exec(owner.lastHtml)![1]!;
    for (const access of [undefined, 'admin']) {
      const res = await owner.post('/oauth/authorize', { ...hidden, decision: 'approve', organizationId: org, ...(access ? { access } : {}) });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('Choose read only or read and write');
    }
    // a request without mcp:write offers no choice and needs none
    const plain = request(clientId, { scope: 'mcp:read' });
    const page = await owner.get(authorizeUrl(plain.q));
    expect(page.body).not.toContain('name="access"');
    expect(page.body).toContain('Read the organisation’s channels');
    const back = await consent(owner, plain.q);
    const res = await exchange(clientId, back.searchParams.get('code')!, plain.verifier);
    expect(res.json<Tokens>().scope).toBe('mcp:read');
  });

  it('resource (RFC 8707): the MCP server, the service or its API are accepted; anything else is invalid_target at both endpoints', async () => {
    const clientId = await registerPublic();
    for (const resource of [`${origin}/mcp`, origin, `${origin}/`, `${origin}/public/v1`]) {
      const { verifier, q } = request(clientId, { resource });
      const back = await consent(owner, q);
      const res = await exchange(clientId, back.searchParams.get('code')!, verifier, { resource });
      expect(res.statusCode, `${resource}: ${res.body}`).toBe(200);
    }
    // refused at the authorisation endpoint: back to the app (its redirect URI is known good)
    for (const resource of ['https://evil.example/mcp', `${origin}/mcp#x`, 'not a uri', `${origin}/mcp/other`]) {
      const { q } = request(clientId, { resource });
      const res = await owner.get(authorizeUrl(q));
      expect(res.statusCode, resource).toBe(303);
      const back = new URL(String(res.headers.location));
      expect(back.searchParams.get('error')).toBe('invalid_target');
      expect(back.searchParams.get('state')).toBe('st');
    }
    // several resources: each must be ours
    const twice = await owner.get(`${authorizeUrl(request(clientId).q)}&resource=${encodeURIComponent('https://evil.example/')}`);
    expect(new URL(String(twice.headers.location)).searchParams.get('error')).toBe('invalid_target');
    // refused at the token endpoint, the code left unused
    const { verifier, q } = request(clientId);
    const back = await consent(owner, q);
    const bad = await exchange(clientId, back.searchParams.get('code')!, verifier, { resource: 'https://evil.example/mcp' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'invalid_target', error_description: expect.stringContaining('https://evil.example/mcp') });
    const good = await exchange(clientId, back.searchParams.get('code')!, verifier);
    expect(good.statusCode, good.body).toBe(200);
    // and at refresh
    const refreshed = await oauthPost(t.app, '/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: good.json<Tokens>().refresh_token, resource: 'https://evil.example/mcp' });
    expect(refreshed.json()).toMatchObject({ error: 'invalid_target' });
  });

  it('loopback redirect URIs (RFC 8252 §7.3): any port at request time; the host, scheme and path must match', async () => {
    const clientId = await registerPublic('http://127.0.0.1/callback');
    const { verifier, challenge } = pkce();
    const base = { client_id: clientId, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', scope: 'mcp:read' };
    const back = await consent(owner, { ...base, redirect_uri: 'http://127.0.0.1:61234/callback' });
    expect(back.origin + back.pathname).toBe('http://127.0.0.1:61234/callback');
    // the token request names the port that was used, and only that one
    const wrongPort = await oauthPost(t.app, '/oauth/token', { grant_type: 'authorization_code', client_id: clientId, code: back.searchParams.get('code')!, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:61235/callback' });
    expect(wrongPort.json()).toMatchObject({ error: 'invalid_grant' });
    const again = await consent(owner, { ...base, redirect_uri: 'http://127.0.0.1:61234/callback' });
    const ok = await oauthPost(t.app, '/oauth/token', { grant_type: 'authorization_code', client_id: clientId, code: again.searchParams.get('code')!, code_verifier: verifier, redirect_uri: 'http://127.0.0.1:61234/callback' });
    expect(ok.statusCode, ok.body).toBe(200);
    for (const other of ['http://localhost:61234/callback', 'http://127.0.0.1:61234/other', 'http://127.0.0.1:61234/callback?x=1', 'http://user@127.0.0.1:61234/callback', 'https://127.0.0.1:61234/callback']) {
      const res = await owner.get(authorizeUrl({ ...base, redirect_uri: other }));
      expect(res.statusCode, other).toBe(400);
      expect(res.body).toContain('redirect_uri mismatch');
    }
    // web apps' https redirect URIs stay exact, port included
    const web = await registerPublic('https://app.example/callback');
    const res = await owner.get(authorizeUrl({ ...base, client_id: web, redirect_uri: 'https://app.example:8443/callback' }));
    expect(res.statusCode).toBe(400);
  });

  it('a refresh may narrow the scope (that token is then read-only), never widen it', async () => {
    const clientId = await registerPublic();
    const { verifier, q } = request(clientId);
    const back = await consent(owner, q, { access: 'write' });
    const tokens = (await exchange(clientId, back.searchParams.get('code')!, verifier)).json<Tokens>();
    expect(tokens.scope).toBe('mcp:read mcp:write');
    const narrowed = await oauthPost(t.app, '/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens.refresh_token, scope: 'mcp:read' });
    expect(narrowed.statusCode, narrowed.body).toBe(200);
    const read = narrowed.json<Tokens>();
    expect(read.scope).toBe('mcp:read');
    expect((await call(t.app, read.access_token, { method: 'POST', url: '/public/v1/groups', payload: { name: 'x' } })).statusCode).toBe(403);
    // the grant itself keeps what the person approved: the next refresh may ask for all of it
    const full = await oauthPost(t.app, '/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: read.refresh_token });
    expect(full.json<Tokens>().scope).toBe('mcp:read mcp:write');

    // a read-only grant cannot be widened by a refresh
    const ro = request(clientId);
    const roBack = await consent(owner, ro.q, { access: 'read' });
    const roTokens = (await exchange(clientId, roBack.searchParams.get('code')!, ro.verifier)).json<Tokens>();
    const widened = await oauthPost(t.app, '/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: roTokens.refresh_token, scope: 'mcp:read mcp:write' });
    expect(widened.statusCode).toBe(400);
    expect(widened.json()).toMatchObject({ error: 'invalid_scope', error_description: expect.stringContaining('more than was granted') });
    // the refused refresh did not spend the token
    const still = await oauthPost(t.app, '/oauth/token', { grant_type: 'refresh_token', client_id: clientId, refresh_token: roTokens.refresh_token });
    expect(still.json<Tokens>().scope).toBe('mcp:read');
  });

  it('CORS: an assistant running in a web page may discover, register and fetch tokens (no cookies: any origin); the consent page is not open to it', async () => {
    const fromPage = { origin: 'https://inspector.example' };
    const preflight = await t.app.inject({ method: 'OPTIONS', url: '/oauth/token', headers: { ...fromPage, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'POST', 'access-control-allow-headers': expect.stringContaining('Content-Type') });
    const meta = await t.app.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server', headers: fromPage });
    expect(meta.headers['access-control-allow-origin']).toBe('*');
    const reg = await t.app.inject({ method: 'POST', url: '/oauth/register', headers: fromPage, payload: { redirect_uris: ['https://inspector.example/cb'], token_endpoint_auth_method: 'none' } });
    expect(reg.statusCode).toBe(201);
    expect(reg.headers['access-control-allow-origin']).toBe('*');
    // errors too, so the page can read what went wrong
    const err = await t.app.inject({ method: 'POST', url: '/oauth/token', headers: fromPage, payload: { grant_type: 'authorization_code' } });
    expect(err.statusCode).toBe(401);
    expect(err.headers['access-control-allow-origin']).toBe('*');
    // the consent page and the person's pages are not for other origins
    const consentPage = await t.app.inject({ method: 'GET', url: '/oauth/authorize?client_id=x', headers: fromPage });
    expect(consentPage.headers['access-control-allow-origin']).toBeUndefined();
  });
});
