import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Google's OAuth 2 server as the Google simulators (Business Profile, YouTube) share it:
 *
 * - the consent page `GET /o/oauth2/v2/auth` (accounts.google.com), approving at once as the
 *   simulator's user: HTML errors for an unknown client (401), a redirect URI missing or not
 *   registered, a missing scope (400); an unsupported response type is redirected back with
 *   `error`; a refresh token is promised with `access_type=offline` the first time a user grants
 *   the app, then only with `prompt=consent`; the redirect carries `state`, `code` and `scope`;
 * - the token endpoint `POST /token` (oauth2.googleapis.com): `invalid_client` (401), codes single
 *   use and ten minutes for their own client and redirect URI, the refresh token in the answer
 *   when promised, refreshes that keep the refresh token (none in the answer), `invalid_grant` for
 *   a revoked grant, `unsupported_grant_type`.
 *
 * Access tokens and what the simulator's API knows of them stay with the simulator (`issueAccess`);
 * `X` is what a grant carries beyond the user (YouTube: the channel picked at consent).
 */

export interface GoogleOAuthApp {
  clientId: string;
  clientSecret: string;
  redirectUris?: string[];
}

/** A Google account (the simulators' `approveAs` takes its `sub`). */
export interface GoogleUserRecord {
  sub: string;
  name: string;
  email: string;
}

export type GoogleRefreshRecord<X> = { sub: string; clientId: string; scopes: string[]; revoked: boolean } & X;

export interface GoogleOAuthOptions<X> {
  apps: Map<string, GoogleOAuthApp>;
  /** the user who approves (and what the grant carries), undefined when no account is signed in */
  approve(): { sub: string; extra: X } | undefined;
  /** the scopes granted of those asked (default: all) */
  grant?(asked: string[]): string[];
  /** PKCE (`plain` or `S256`) checked when the authorisation sent a challenge */
  pkce?: boolean;
  /** the token endpoint also takes the client's id and secret as HTTP Basic credentials */
  basicAuth?: boolean;
  /** the simulator's access token for a grant: the token endpoint's answer */
  issueAccess(sub: string, extra: X, clientId: string, scopes: string[]): Record<string, unknown>;
  /** a refresh was made */
  onRefresh?(): void;
}

const rand = (n: number) => randomBytes(n).toString('base64url');

export function createGoogleOAuthSimulator<X extends object>(opts: GoogleOAuthOptions<X>) {
  const refreshTokens = new Map<string, GoogleRefreshRecord<X>>();
  /** (sub, clientId) pairs that have granted offline access once */
  const granted = new Set<string>();
  const codes = new Map<string, { clientId: string; redirectUri: string; sub: string; extra: X; scopes: string[]; challenge?: string; method?: string; refresh: boolean; expiresAt: number; used: boolean }>();

  function register(app: FastifyInstance) {
    // ---- OAuth: the consent page (accounts.google.com)
    app.get('/o/oauth2/v2/auth', async (req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>, reply) => {
      const q = req.query;
      const a = q.client_id ? opts.apps.get(q.client_id) : undefined;
      if (!a) return reply.status(401).type('text/html').send('<h1>Access blocked: Authorisation error</h1><p>The OAuth client was not found.</p><p>Error 401: invalid_client</p>');
      if (!q.redirect_uri || (a.redirectUris && !a.redirectUris.includes(q.redirect_uri))) {
        return reply.status(400).type('text/html').send(`<h1>Access blocked: This app's request is invalid</h1><p>Error 400: redirect_uri_mismatch</p>`);
      }
      if (!q.scope) return reply.status(400).type('text/html').send('<p>Error 400: invalid_request</p><p>Missing required parameter: scope</p>');
      const back = new URL(q.redirect_uri);
      if (q.state) back.searchParams.set('state', q.state);
      if (q.response_type !== 'code') {
        back.searchParams.set('error', 'unsupported_response_type');
        return reply.redirect(back.toString(), 302);
      }
      if (opts.pkce && q.code_challenge && q.code_challenge_method && !['S256', 'plain'].includes(q.code_challenge_method)) {
        return reply.status(400).type('text/html').send('<p>Error 400: invalid_request</p><p>Invalid code_challenge_method</p>');
      }
      const approved = opts.approve();
      if (!approved) return reply.status(400).type('text/html').send('<p>No Google account is signed in</p>');
      const asked = q.scope.split(' ').filter(Boolean);
      const scopes = opts.grant ? opts.grant(asked) : asked;
      const key = `${approved.sub} ${a.clientId}`;
      // Google gives a refresh token for offline access the first time, then only when consent is asked again.
      const refresh = q.access_type === 'offline' && (!granted.has(key) || q.prompt === 'consent');
      if (q.access_type === 'offline') granted.add(key);
      const code = `4/0A${rand(60)}`;
      codes.set(code, {
        clientId: a.clientId,
        redirectUri: q.redirect_uri,
        sub: approved.sub,
        extra: approved.extra,
        scopes,
        ...(opts.pkce && q.code_challenge ? { challenge: q.code_challenge, method: q.code_challenge_method ?? 'plain' } : {}),
        refresh,
        expiresAt: Date.now() + 10 * 60_000,
        used: false,
      });
      back.searchParams.set('code', code);
      back.searchParams.set('scope', scopes.join(' '));
      return reply.redirect(back.toString(), 302);
    });

    // ---- OAuth: the token endpoint (oauth2.googleapis.com)
    app.post('/token', async (req, reply) => {
      const b = (req.body ?? {}) as Record<string, string | undefined>;
      let clientId = b.client_id;
      let secret = b.client_secret;
      const basic = opts.basicAuth ? /^Basic (.+)$/.exec(req.headers.authorization ?? '') : null;
      if (basic) {
        const [id, s] = Buffer.from(basic[1]!, 'base64').toString().split(':');
        clientId = decodeURIComponent(id ?? '');
        secret = decodeURIComponent(s ?? '');
      }
      const a = clientId ? opts.apps.get(clientId) : undefined;
      if (!a) return reply.status(401).send({ error: 'invalid_client', error_description: 'The OAuth client was not found.' });
      if (secret !== a.clientSecret) return reply.status(401).send({ error: 'invalid_client', error_description: 'Unauthorized' });
      if (b.grant_type === 'authorization_code') {
        const c = b.code ? codes.get(b.code) : undefined;
        if (!c || c.used || c.expiresAt < Date.now() || c.clientId !== a.clientId) return reply.status(400).send({ error: 'invalid_grant', error_description: 'Bad Request' });
        if (c.redirectUri !== b.redirect_uri) return reply.status(400).send({ error: 'redirect_uri_mismatch', error_description: 'Bad Request' });
        if (c.challenge) {
          if (!b.code_verifier) return reply.status(400).send({ error: 'invalid_request', error_description: 'code_verifier or verifier is not provided' });
          const computed = c.method === 'S256' ? createHash('sha256').update(b.code_verifier).digest('base64url') : b.code_verifier;
          if (computed !== c.challenge) return reply.status(400).send({ error: 'invalid_grant', error_description: 'Invalid code verifier.' });
        }
        c.used = true;
        const body = opts.issueAccess(c.sub, c.extra, a.clientId, c.scopes);
        if (c.refresh) {
          const rt = `1//0${rand(70)}`;
          refreshTokens.set(rt, { sub: c.sub, ...c.extra, clientId: a.clientId, scopes: c.scopes, revoked: false });
          body.refresh_token = rt;
        }
        return body;
      }
      if (b.grant_type === 'refresh_token') {
        const r = b.refresh_token ? refreshTokens.get(b.refresh_token) : undefined;
        if (!r || r.revoked || r.clientId !== a.clientId) return reply.status(400).send({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
        opts.onRefresh?.();
        // Google keeps the refresh token: none in the answer.
        const { sub, clientId: _client, scopes, revoked: _revoked, ...extra } = r;
        return opts.issueAccess(sub, extra as unknown as X, a.clientId, scopes);
      }
      return reply.status(400).send({ error: 'unsupported_grant_type', error_description: `Invalid grant_type: ${b.grant_type ?? ''}` });
    });
  }

  return { register, refreshTokens };
}
