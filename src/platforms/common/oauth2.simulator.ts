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
 * (when required), PKCE S256 challenge (when required), a scope it does not know (when it lists
 * them), no user to approve; token endpoint — body not a form, unknown client, wrong secret (with
 * the client in HTTP Basic, the client and its secret come first: they are read before the body),
 * then for a code: unknown/used/other client/expired, other redirect URI, PKCE verifier (when
 * required); for a refresh token: unknown/revoked/expired/other client; any other grant type.
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
  | 'bad_scope'
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

/** What a test can do to a simulator's OAuth 2 server: register apps, pick who approves and what is granted, age and revoke tokens. */
export interface OAuth2Controls<U, A = OAuth2AppRecord> {
  apps: Map<string, A>;
  addApp(app: A): void;
  /** the user who approves the next authorisations (default: the first added) */
  approveAs(userId: U): void;
  /** scopes the user grants (default: what the app asks) */
  grantOnly(scopes: string[] | undefined): void;
  expireAccessTokens(): void;
  /** the user removes the app: access and refresh tokens stop working */
  revokeGrant(): void;
  /** how many refresh tokens have been exchanged */
  refreshCount(): number;
}

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
  /** refresh tokens expire this long after they are handed out (default: never) */
  refreshSeconds?: number;
  /** where the token endpoint reads the client: the form's `client_id`/`client_secret` (default) or HTTP Basic */
  clientAuth?: 'form' | 'basic';
  /** how the authorisation's `scope` is split (default: at single spaces) */
  scopeSeparator?: string | RegExp;
  /** the scopes the authorisation page knows: any other is refused (`bad_scope`; default: any) */
  knownScopes?: readonly string[];
  /** who approves an authorisation (undefined: nobody is signed in) */
  approver(): U | undefined;
  /** the token endpoint's answer, for the grant that asked */
  tokenBody(t: { access: OAuth2TokenRecord<U>; refresh: OAuth2TokenRecord<U>; grant: OAuth2Grant }): unknown;
  /** the platform's answer to a failed check (the request, for answers that redirect back with `state`) */
  fail(reply: FastifyReply, failure: OAuth2Failure, req: FastifyRequest<{ Querystring: Record<string, string | undefined> }>): FastifyReply;
}

export type OAuth2Grant = 'authorization_code' | 'refresh_token';

/** The client id and secret of an HTTP Basic `Authorization` header (each part URL-decoded, as RFC 6749 §2.3.1 says). */
function basicClient(req: FastifyRequest): { id?: string; secret?: string } {
  const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const [id, secret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent) : [];
  return { id, secret };
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export function createOAuth2Simulator<U>(opts: OAuth2SimulatorOptions<U>) {
  const apps = new Map<string, OAuth2AppRecord>();
  const tokens = new Map<string, OAuth2TokenRecord<U>>();
  const refreshTokens = new Map<string, OAuth2TokenRecord<U>>();
  const codes = new Map<string, { clientId: string; redirectUri: string; userId: U; scopes: string[]; challenge?: string; expiresAt: number; used: boolean }>();
  let granted: string[] | undefined;
  let refreshes = 0;

  function issue(userId: U, clientId: string, scopes: string[], grant: OAuth2Grant) {
    const access: OAuth2TokenRecord<U> = { token: opts.accessToken(), userId, clientId, scopes, expiresAt: Date.now() + opts.accessSeconds * 1000, revoked: false };
    const refreshExpiresAt = opts.refreshSeconds === undefined ? Number.POSITIVE_INFINITY : Date.now() + opts.refreshSeconds * 1000;
    const refresh: OAuth2TokenRecord<U> = { ...access, token: opts.refreshToken(), expiresAt: refreshExpiresAt };
    tokens.set(access.token, access);
    refreshTokens.set(refresh.token, refresh);
    return opts.tokenBody({ access, refresh, grant });
  }

  function register(app: FastifyInstance) {
    app.get<{ Querystring: Record<string, string | undefined> }>(opts.paths.authorize, (req, reply) => {
      const q = req.query;
      const client = apps.get(q.client_id ?? '');
      const fail = (f: OAuth2Failure) => opts.fail(reply, f, req);
      if (!client) return fail('unknown_client');
      if (!q.redirect_uri || (client.redirectUris && !client.redirectUris.includes(q.redirect_uri))) return fail('bad_redirect_uri');
      if (q.response_type !== 'code') return fail('bad_response_type');
      if (opts.requireState && !q.state) return fail('missing_state');
      if (opts.pkce && (!q.code_challenge || q.code_challenge_method !== 'S256')) return fail('missing_pkce');
      const asked = (q.scope ?? '').split(opts.scopeSeparator ?? ' ').filter(Boolean);
      if (opts.knownScopes && asked.some((s) => !opts.knownScopes!.includes(s))) return fail('bad_scope');
      const userId = opts.approver();
      if (userId === undefined) return fail('no_user');
      const scopes = granted ? asked.filter((s) => granted!.includes(s)) : asked;
      const code = opts.code();
      codes.set(code, { clientId: client.clientId, redirectUri: q.redirect_uri, userId, scopes, challenge: q.code_challenge, expiresAt: Date.now() + opts.codeMs, used: false });
      const back = new URL(q.redirect_uri);
      back.searchParams.set('code', code);
      if (opts.redirectScope) back.searchParams.set('scope', scopes.join(' '));
      if (q.state) back.searchParams.set('state', q.state);
      return reply.redirect(back.toString(), 302);
    });

    app.post<{ Body: Record<string, string | undefined> | undefined; Querystring: Record<string, string | undefined> }>(opts.paths.token, (req, reply) => {
      const fail = (f: OAuth2Failure) => opts.fail(reply, f, req);
      const isForm = () => String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      const b = req.body ?? {};
      const basic = opts.clientAuth === 'basic';
      if (!basic && !isForm()) return fail('not_form');
      const presented = basic ? basicClient(req) : { id: b.client_id, secret: b.client_secret };
      const client = apps.get(presented.id ?? '');
      if (!client) return fail('token_unknown_client');
      if (presented.secret !== client.clientSecret) return fail('wrong_secret');
      if (basic && !isForm()) return fail('not_form');
      if (b.grant_type === 'authorization_code') {
        const c = codes.get(b.code ?? '');
        // A code is single use, for its own client, and short-lived.
        if (!c || c.used || c.clientId !== client.clientId || c.expiresAt <= Date.now()) return fail('bad_code');
        if (c.redirectUri !== b.redirect_uri) return fail('code_redirect_mismatch');
        if (opts.pkce && (!b.code_verifier || s256(b.code_verifier) !== c.challenge)) return fail('bad_verifier');
        c.used = true;
        return reply.send(issue(c.userId, client.clientId, c.scopes, 'authorization_code'));
      }
      if (b.grant_type === 'refresh_token') {
        const r = refreshTokens.get(b.refresh_token ?? '');
        if (!r || r.revoked || r.expiresAt <= Date.now() || r.clientId !== client.clientId) return fail('bad_refresh_token');
        // Rotation: the presented refresh token is retired.
        if (opts.rotateRefreshTokens) refreshTokens.delete(r.token);
        refreshes++;
        return reply.send(issue(r.userId, r.clientId, r.scopes, 'refresh_token'));
      }
      return fail('unsupported_grant');
    });
  }

  const addApp = (a: OAuth2AppRecord) => {
    apps.set(a.clientId, a);
  };
  const grantOnly = (scopes: string[] | undefined) => {
    granted = scopes;
  };
  const expireAccessTokens = () => {
    for (const t of tokens.values()) t.expiresAt = Date.now() - 1;
  };
  const revokeGrant = () => {
    for (const t of tokens.values()) t.revoked = true;
    for (const t of refreshTokens.values()) t.revoked = true;
  };
  const refreshCount = () => refreshes;

  return {
    apps,
    tokens,
    register,
    addApp,
    /** what a simulator hands its tests of this server (spread into the simulator): `OAuth2Controls` but `approveAs` */
    controls: { apps, addApp, grantOnly, expireAccessTokens, revokeGrant, refreshCount } satisfies Omit<OAuth2Controls<U>, 'approveAs'>,
    /** The bearer token's record when it is known, not revoked and not expired. */
    bearer(req: FastifyRequest): OAuth2TokenRecord<U> | undefined {
      const m = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
      const t = m ? tokens.get(m[1]!) : undefined;
      return !t || t.revoked || t.expiresAt <= Date.now() ? undefined : t;
    },
    grantOnly,
    expireAccessTokens,
    revokeGrant,
    refreshCount,
  };
}
