import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The OAuth 2 authorisation-code server simulators compose: an authorisation page that approves at
 * once (as the user the simulator says) and redirects back with a code, and a form-encoded token
 * endpoint with the `authorization_code` and `refresh_token` grants. Codes are single use, bound to
 * their client and redirect URI, and expire; access tokens expire; refresh tokens do not (they may
 * rotate). What differs between platforms is a parameter: the paths, the secrets' shapes, the token
 * lifetime, PKCE and `state` being required, the token body, and every error answer (`fail`).
 *
 * The checks run in one order, which is each platform's order where the answers differ:
 * authorisation page — unknown client, redirect URI missing or unregistered, response type, state
 * (when required), PKCE S256 challenge (when required), no user to approve; token endpoint — body
 * not a form, unknown client, wrong secret, then for a code: unknown/used/other client/expired,
 * other redirect URI, PKCE verifier (when required); for a refresh token: unknown/revoked/other
 * client; any other grant type.
 */

export interface OAuth2AppRecord {
  clientId: string;
  clientSecret: string;
  /** registered redirect URIs (any when absent) */
  redirectUris?: string[];
}

/** An access or refresh token the server handed out. */
export interface OAuth2TokenRecord<U> {
  token: string;
  userId: U;
  clientId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export type OAuth2Failure =
  // the authorisation page
  | 'unknown_client'
  | 'bad_redirect_uri'
  | 'bad_response_type'
  | 'missing_state'
  | 'missing_pkce'
  | 'no_user'
  // the token endpoint
  | 'not_form'
  | 'token_unknown_client'
  | 'wrong_secret'
  | 'bad_code'
  | 'code_redirect_mismatch'
  | 'bad_verifier'
  | 'bad_refresh_token'
  | 'unsupported_grant';

export interface OAuth2SimulatorOptions<U> {
  paths: { authorize: string; token: string };
  accessSeconds: number;
  codeMs: number;
  accessToken(): string;
  refreshToken(): string;
  code(): string;
  /** OAuth 2.1: the authorisation needs an S256 code challenge, the code its verifier */
  pkce: boolean;
  /** the authorisation page refuses a request without `state` */
  requireState: boolean;
  /** the redirect back carries the granted `scope` (after `code`, before `state`) */
  redirectScope: boolean;
  /** a refresh retires the presented refresh token */
  rotateRefreshTokens: boolean;
  /** who approves an authorisation (undefined: nobody is signed in) */
  approver(): U | undefined;
  /** the token endpoint's answer */
  tokenBody(t: { access: OAuth2TokenRecord<U>; refresh: OAuth2TokenRecord<U> }): unknown;
  /** the platform's answer to a failed check */
  fail(reply: FastifyReply, failure: OAuth2Failure): FastifyReply;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export function createOAuth2Simulator<U>(opts: OAuth2SimulatorOptions<U>) {
  const apps = new Map<string, OAuth2AppRecord>();
  const tokens = new Map<string, OAuth2TokenRecord<U>>();
  const refreshTokens = new Map<string, OAuth2TokenRecord<U>>();
  const codes = new Map<string, { clientId: string; redirectUri: string; userId: U; scopes: string[]; challenge?: string; expiresAt: number; used: boolean }>();
  let granted: string[] | undefined;
  let refreshes = 0;

  function issue(userId: U, clientId: string, scopes: string[]) {
    const access: OAuth2TokenRecord<U> = { token: opts.accessToken(), userId, clientId, scopes, expiresAt: Date.now() + opts.accessSeconds * 1000, revoked: false };
    const refresh: OAuth2TokenRecord<U> = { ...access, token: opts.refreshToken(), expiresAt: Number.POSITIVE_INFINITY };
    tokens.set(access.token, access);
    refreshTokens.set(refresh.token, refresh);
    return opts.tokenBody({ access, refresh });
  }

  function register(app: FastifyInstance) {
    app.get<{ Querystring: Record<string, string | undefined> }>(opts.paths.authorize, (req, reply) => {
      const q = req.query;
      const client = apps.get(q.client_id ?? '');
      if (!client) return opts.fail(reply, 'unknown_client');
      if (!q.redirect_uri || (client.redirectUris && !client.redirectUris.includes(q.redirect_uri))) return opts.fail(reply, 'bad_redirect_uri');
      if (q.response_type !== 'code') return opts.fail(reply, 'bad_response_type');
      if (opts.requireState && !q.state) return opts.fail(reply, 'missing_state');
      if (opts.pkce && (!q.code_challenge || q.code_challenge_method !== 'S256')) return opts.fail(reply, 'missing_pkce');
      const userId = opts.approver();
      if (userId === undefined) return opts.fail(reply, 'no_user');
      const asked = (q.scope ?? '').split(' ').filter(Boolean);
      const scopes = granted ? asked.filter((s) => granted!.includes(s)) : asked;
      const code = opts.code();
      codes.set(code, { clientId: client.clientId, redirectUri: q.redirect_uri, userId, scopes, challenge: q.code_challenge, expiresAt: Date.now() + opts.codeMs, used: false });
      const back = new URL(q.redirect_uri);
      back.searchParams.set('code', code);
      if (opts.redirectScope) back.searchParams.set('scope', scopes.join(' '));
      if (q.state) back.searchParams.set('state', q.state);
      return reply.redirect(back.toString(), 302);
    });

    app.post<{ Body: Record<string, string | undefined> }>(opts.paths.token, (req, reply) => {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return opts.fail(reply, 'not_form');
      const b = req.body ?? {};
      const client = apps.get(b.client_id ?? '');
      if (!client) return opts.fail(reply, 'token_unknown_client');
      if (b.client_secret !== client.clientSecret) return opts.fail(reply, 'wrong_secret');
      if (b.grant_type === 'authorization_code') {
        const c = codes.get(b.code ?? '');
        // A code is single use, for its own client, and short-lived.
        if (!c || c.used || c.clientId !== client.clientId || c.expiresAt <= Date.now()) return opts.fail(reply, 'bad_code');
        if (c.redirectUri !== b.redirect_uri) return opts.fail(reply, 'code_redirect_mismatch');
        if (opts.pkce && (!b.code_verifier || s256(b.code_verifier) !== c.challenge)) return opts.fail(reply, 'bad_verifier');
        c.used = true;
        return reply.send(issue(c.userId, client.clientId, c.scopes));
      }
      if (b.grant_type === 'refresh_token') {
        const r = refreshTokens.get(b.refresh_token ?? '');
        if (!r || r.revoked || r.clientId !== client.clientId) return opts.fail(reply, 'bad_refresh_token');
        // Rotation: the presented refresh token is retired.
        if (opts.rotateRefreshTokens) refreshTokens.delete(r.token);
        refreshes++;
        return reply.send(issue(r.userId, r.clientId, r.scopes));
      }
      return opts.fail(reply, 'unsupported_grant');
    });
  }

  return {
    apps,
    tokens,
    register,
    addApp: (a: OAuth2AppRecord) => {
      apps.set(a.clientId, a);
    },
    /** The bearer token's record when it is known, not revoked and not expired. */
    bearer(req: FastifyRequest): OAuth2TokenRecord<U> | undefined {
      const m = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
      const t = m ? tokens.get(m[1]!) : undefined;
      return !t || t.revoked || t.expiresAt <= Date.now() ? undefined : t;
    },
    /** scopes the user grants (default: what the app asks) */
    grantOnly: (scopes: string[] | undefined) => {
      granted = scopes;
    },
    expireAccessTokens: () => {
      for (const t of tokens.values()) t.expiresAt = Date.now() - 1;
    },
    /** the user removes the app: access and refresh tokens stop working */
    revokeGrant: () => {
      for (const t of tokens.values()) t.revoked = true;
      for (const t of refreshTokens.values()) t.revoked = true;
    },
    refreshCount: () => refreshes,
  };
}
