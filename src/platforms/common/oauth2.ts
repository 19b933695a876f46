import { createHash, randomBytes } from 'node:crypto';
import { errorFromResponse, extractMessage } from '../http-errors.js';
import { PlatformError, type OAuthMetadata, type PlatformHttp } from '../platform.js';

/** Building blocks of OAuth 2 authorisation-code flows, shared by the OAuth adapters. */

export interface OAuthApp {
  clientId: string;
  clientSecret: string;
}

/** A PKCE pair (RFC 7636, S256). */
export function createPkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function buildAuthorizeUrl(
  oauth: OAuthMetadata,
  input: { clientId: string; redirectUri: string; state: string; codeChallenge?: string; extra?: Record<string, string> },
): string {
  const url = new URL(oauth.authorizeUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', input.clientId);
  url.searchParams.set('redirect_uri', input.redirectUri);
  url.searchParams.set('state', input.state);
  if (oauth.scopes.length > 0) url.searchParams.set('scope', oauth.scopes.join(oauth.scopeSeparator ?? ' '));
  if (oauth.pkce && input.codeChallenge) {
    url.searchParams.set('code_challenge', input.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  for (const [k, v] of Object.entries(input.extra ?? {})) url.searchParams.set(k, v);
  return url.toString();
}

export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  scope: string | null;
  /** the whole answer, for platforms that put more in it (Slack's team, Reddit's…) */
  raw: Record<string, unknown>;
}

function tokenSet(body: Record<string, unknown>, now: number, previousRefresh: string | null = null): TokenSet {
  const access = body.access_token;
  if (typeof access !== 'string' || access === '') throw new PlatformError('rejected', extractMessage(body) ?? 'The platform returned no access token');
  const expiresIn = Number(body.expires_in);
  return {
    accessToken: access,
    // Some platforms rotate the refresh token, others keep the one we had.
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : previousRefresh,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(now + expiresIn * 1000) : null,
    scope: typeof body.scope === 'string' ? body.scope : null,
    raw: body,
  };
}

/** How the client authenticates at the token endpoint. */
export type ClientAuth = 'basic' | 'body';

async function tokenRequest(
  http: PlatformHttp,
  tokenUrl: string,
  app: OAuthApp,
  params: Record<string, string>,
  clientAuth: ClientAuth,
  untrustedHost: boolean,
) {
  const form = new URLSearchParams(params);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (clientAuth === 'basic') {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret)}`).toString('base64')}`;
  } else {
    form.set('client_id', app.clientId);
    form.set('client_secret', app.clientSecret);
  }
  return http.request({ method: 'POST', url: tokenUrl, headers, body: form.toString(), untrustedHost });
}

/** Classifies a token endpoint failure: a dead grant is `reconnect_required`, never retried. */
function tokenError(res: { status: number; headers: Record<string, string>; body: unknown }, now: number): PlatformError | undefined {
  const b = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as Record<string, unknown>;
  const code = typeof b.error === 'string' ? b.error : undefined;
  if (code === 'invalid_grant' || code === 'invalid_token' || code === 'unauthorized_client' || code === 'invalid_client') {
    return new PlatformError('reconnect_required', `${code}${typeof b.error_description === 'string' ? `: ${b.error_description}` : ''}`, { status: res.status, platformCode: code });
  }
  return errorFromResponse(res, now) ?? (res.status >= 200 && res.status < 300 && code ? new PlatformError('rejected', extractMessage(b) ?? code) : undefined);
}

/** Exchanges the callback's `code` for tokens. Not retried: codes are single use. */
export async function exchangeCode(
  http: PlatformHttp,
  input: { tokenUrl: string; app: OAuthApp; code: string; redirectUri: string; codeVerifier?: string; clientAuth?: ClientAuth; now: number; untrustedHost?: boolean; extra?: Record<string, string> },
): Promise<TokenSet> {
  const res = await tokenRequest(
    http,
    input.tokenUrl,
    input.app,
    {
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: input.redirectUri,
      ...(input.codeVerifier ? { code_verifier: input.codeVerifier } : {}),
      ...input.extra,
    },
    input.clientAuth ?? 'body',
    input.untrustedHost ?? false,
  );
  const err = tokenError(res, input.now);
  if (err) throw err.kind === 'reconnect_required' ? new PlatformError('rejected', `The platform refused the authorisation: ${err.message}`, err.details) : err;
  return tokenSet(res.body as Record<string, unknown>, input.now);
}

/** Renews an access token with a refresh token; `reconnect_required` when the grant is gone. */
export async function refreshTokens(
  http: PlatformHttp,
  input: { tokenUrl: string; app: OAuthApp; refreshToken: string; clientAuth?: ClientAuth; now: number; untrustedHost?: boolean },
): Promise<TokenSet> {
  const res = await tokenRequest(
    http,
    input.tokenUrl,
    input.app,
    { grant_type: 'refresh_token', refresh_token: input.refreshToken },
    input.clientAuth ?? 'body',
    input.untrustedHost ?? false,
  );
  const err = tokenError(res, input.now);
  if (err) throw err.kind === 'auth_expired' ? new PlatformError('reconnect_required', err.message, err.details) : err;
  return tokenSet(res.body as Record<string, unknown>, input.now, input.refreshToken);
}
