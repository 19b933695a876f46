import { describe, expect, it } from 'vitest';
import { newUserCode, normalizeUserCode } from '../../lib/tokens.js';
import { redirectUriProblem } from './clients.service.js';
import { accessChoice, checkResources, OAuthError, parseScope, pkceMatches, readClientCredentials, redirectUriMatches, safeEqual, scopeWithin } from './oauth-core.js';

describe('OAuth building blocks', () => {
  it('PKCE S256 matches the RFC 7636 appendix B example, and nothing else', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
    expect(pkceMatches(verifier, challenge)).toBe(true);
    expect(pkceMatches(`${verifier}x`, challenge)).toBe(false);
    expect(pkceMatches(challenge, challenge)).toBe(false);
    // too short, or characters outside the unreserved set
    expect(pkceMatches('short', challenge)).toBe(false);
    expect(pkceMatches(`${verifier.slice(0, 42)}+`, challenge)).toBe(false);
  });

  it('compares secrets in constant time whatever their lengths (through their digests)', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcdef')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });

  it('reads client credentials from Basic (form-encoded, RFC 6749 §2.3.1) or the body', () => {
    const basic = `Basic ${Buffer.from(`${encodeURIComponent('id:with:colons')}:${encodeURIComponent('sécret %+&')}`).toString('base64')}`;
    expect(readClientCredentials(basic, { client_id: 'ignored' })).toEqual({ clientId: 'id:with:colons', clientSecret: 'sécret %+&', basic: true });
    expect(readClientCredentials(undefined, { client_id: 'a', client_secret: 'b' })).toEqual({ clientId: 'a', clientSecret: 'b', basic: false });
    expect(readClientCredentials('Bearer x', { client_id: 'a' })).toEqual({ clientId: 'a', clientSecret: undefined, basic: false });
  });

  it('scopes: api by default; known names kept once; unknown ones are invalid_scope', () => {
    expect(parseScope(undefined)).toBe('api');
    expect(parseScope('mcp:read mcp:write mcp:read')).toBe('mcp:read mcp:write');
    expect(() => parseScope('api admin')).toThrow(OAuthError);
  });

  it('redirect URIs: https, or http on loopback; no fragments or credentials', () => {
    expect(redirectUriProblem('https://app.example/cb?x=1')).toBeUndefined();
    expect(redirectUriProblem('http://127.0.0.1:8000/cb')).toBeUndefined();
    expect(redirectUriProblem('http://[::1]/cb')).toBeUndefined();
    expect(redirectUriProblem('http://localhost/cb')).toBeUndefined();
    expect(redirectUriProblem('http://app.example/cb')).toMatch(/https/);
    expect(redirectUriProblem('https://app.example/cb#frag')).toMatch(/fragment/);
    expect(redirectUriProblem('https://u:p@app.example/cb')).toMatch(/user name/);
    expect(redirectUriProblem('javascript:alert(1)')).toMatch(/https/);
    expect(redirectUriProblem('/relative')).toMatch(/absolute/);
  });

  it('user codes: XXXX-XXXX of consonants; typed codes are normalised', () => {
    for (let i = 0; i < 200; i++) expect(newUserCode()).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(normalizeUserCode(' bcdf ghjk ')).toBe('BCDF-GHJK');
    expect(normalizeUserCode('BCDF-GHJ')).toBeUndefined();
    expect(normalizeUserCode('ABCD-EFGH')).toBeUndefined();
  });

  it('loopback redirect URIs match on any port (RFC 8252 §7.3); everything else exactly', () => {
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:49152/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:5555/cb', 'http://127.0.0.1:6666/cb')).toBe(true);
    expect(redirectUriMatches('http://[::1]:5555/cb', 'http://[::1]:7000/cb')).toBe(true);
    expect(redirectUriMatches('http://localhost:5555/cb?a=1', 'http://localhost:1234/cb?a=1')).toBe(true);
    // another host, path, query, scheme, or user info
    expect(redirectUriMatches('http://127.0.0.1:5555/cb', 'http://localhost:5555/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:5555/cb', 'http://127.0.0.1:5555/cb/')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:5555/cb', 'http://127.0.0.1:5555/cb?x=1')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:5555/cb', 'https://127.0.0.1:5555/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:5555/cb', 'http://a@127.0.0.1:5555/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:5555/cb', 'http://127.0.0.1:5555/cb#f')).toBe(false);
    // not loopback: the port is part of the exact match
    expect(redirectUriMatches('https://app.example/cb', 'https://app.example:8443/cb')).toBe(false);
    expect(redirectUriMatches('https://app.example/cb', 'https://app.example/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:5555/cb', 'not a url')).toBe(false);
  });

  it('resource indicators (RFC 8707): this service, its MCP server or its API; anything else is invalid_target', () => {
    const issuer = 'https://tidings.example';
    expect(() => checkResources(['https://tidings.example/mcp', 'https://tidings.example', 'https://tidings.example/', 'https://tidings.example/public/v1'], issuer)).not.toThrow();
    expect(() => checkResources([], issuer)).not.toThrow();
    for (const bad of ['https://evil.example/mcp', 'https://tidings.example/mcp#x', 'mcp', 'https://tidings.example/mcp/x', 'http://tidings.example/mcp']) {
      let err: unknown;
      try {
        checkResources([bad], issuer);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(OAuthError);
      expect((err as OAuthError).error).toBe('invalid_target');
    }
  });

  it('the consent choice is offered when mcp:write is asked; a refresh may only narrow', () => {
    expect(accessChoice('mcp:read mcp:write')).toEqual({ read: 'mcp:read', write: 'mcp:read mcp:write' });
    expect(accessChoice('mcp:write')).toEqual({ read: 'mcp:read', write: 'mcp:write' });
    expect(accessChoice('mcp:read')).toBeUndefined();
    expect(accessChoice('api')).toBeUndefined();
    expect(scopeWithin('mcp:read', 'mcp:read mcp:write')).toBe(true);
    expect(scopeWithin('mcp:read mcp:write', 'mcp:read')).toBe(false);
    expect(scopeWithin('api', 'mcp:read mcp:write')).toBe(false);
  });
});
