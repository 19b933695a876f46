import { describe, expect, it } from 'vitest';
import { newUserCode, normalizeUserCode } from '../../lib/tokens.js';
import { redirectUriProblem } from './clients.service.js';
import { OAuthError, parseScope, pkceMatches, readClientCredentials, safeEqual } from './oauth-core.js';

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
});
