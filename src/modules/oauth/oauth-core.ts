import { createHash, timingSafeEqual } from 'node:crypto';
import type { Tx } from '../../db/client.js';
import type { MemberRole } from '../../db/schema/index.js';
import type { Clock } from '../../lib/clock.js';
import { hashCredential, newAccessToken, newRefreshToken, visiblePrefix } from '../../lib/tokens.js';
import type { ClientRow, GrantRow, OauthRepository } from './oauth.repository.js';

/**
 * An OAuth protocol error (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8628 §3.5), answered as
 * `{ error, error_description }`, never in the API's error shape: OAuth clients read these.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

/**
 * What a token may do (API.md §2: a token acts for its organisation). `api` and `mcp:write` mean
 * the whole API; a token granted `mcp:read` alone may only read (`auth.service#isReadOnlyScope`):
 * the API refuses its other methods and MCP its tools that change anything.
 */
export const SCOPES: Record<string, string> = {
  api: 'Use the public API for the organisation: read and change its channels, posts, media, webhooks and analytics, and publish in its name',
  'mcp:read': 'Read the organisation’s channels, posts, media, webhooks and analytics',
  'mcp:write': 'Change them: create, edit, schedule and delete posts, upload media, manage channels and webhooks, and publish in the organisation’s name',
};
export const DEFAULT_SCOPE = 'api';

/** The requested scope, normalised (space-separated, known names only), or an `invalid_scope` error. */
export function parseScope(requested: string | undefined): string {
  const names = (requested ?? '').split(' ').filter(Boolean);
  if (names.length === 0) return DEFAULT_SCOPE;
  const unknown = names.filter((n) => !(n in SCOPES));
  if (unknown.length > 0) throw new OAuthError('invalid_scope', `Unknown scope ${unknown.map((u) => `"${u}"`).join(', ')}; this server knows ${Object.keys(SCOPES).join(', ')}`);
  return [...new Set(names)].join(' ');
}

/**
 * The access a person may choose on the consent page when an app asks to change things through
 * MCP (`mcp:write`): read only (`mcp:read`, the token is read-only) or what the app asked for.
 * Undefined when the request leaves nothing to choose.
 */
export function accessChoice(scope: string): { read: string; write: string } | undefined {
  const names = scope.split(' ');
  if (!names.includes('mcp:write')) return undefined;
  return { read: 'mcp:read', write: scope };
}

/** Whether every scope in `requested` was granted (a refresh may narrow its grant's scope, never widen it). */
export function scopeWithin(requested: string, granted: string): boolean {
  const have = new Set(granted.split(' ').filter(Boolean));
  return requested
    .split(' ')
    .filter(Boolean)
    .every((n) => have.has(n));
}

/**
 * RFC 8707 resource indicators: the resources a token of this server may be for (the MCP server,
 * the public API, the service as a whole). One token serves them all, so an accepted indicator
 * changes nothing in what is issued; anything else is `invalid_target`.
 */
export function checkResources(values: readonly string[], issuer: string): void {
  const ours = new Set([`${issuer}/mcp`, issuer, `${issuer}/public/v1`]);
  for (const value of values) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new OAuthError('invalid_target', `resource must be an absolute URI; "${value}" is not one`);
    }
    if (url.hash || value.includes('#')) throw new OAuthError('invalid_target', `resource must not have a fragment: "${value}"`);
    // the indicator as written, or with a trailing "/" (a URL parser adds one to a path-less origin)
    const bare = url.href.endsWith('/') ? url.href.slice(0, -1) : url.href;
    if (!ours.has(bare)) throw new OAuthError('invalid_target', `resource "${value}" is not served here; this server issues tokens for ${[...ours].join(', ')}`);
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether a redirect URI of an authorisation request is one the client registered: the same
 * string (OAuth 2.1 §2.3.1), or, for a plain-http loopback URI, the same one on another port:
 * native apps listen on whatever port is free when they sign in (RFC 8252 §7.3, OAuth 2.1 §8.4.2).
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  let a: URL;
  let b: URL;
  try {
    a = new URL(registered);
    b = new URL(requested);
  } catch {
    return false;
  }
  if (a.protocol !== 'http:' || b.protocol !== 'http:' || !LOOPBACK_HOSTS.has(a.hostname)) return false;
  if (b.username || b.password || b.hash || requested.includes('#')) return false;
  return a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search;
}

/** Who may let an app act for an organisation: those who may make its API keys. */
export const GRANTING_ROLES: readonly MemberRole[] = ['owner', 'admin'];

/** Constant-time comparison of two strings (through their SHA-256, so lengths never leak). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  return safeEqual(createHash('sha256').update(verifier).digest('base64url'), challenge);
}

export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
  /** the credentials came in an `Authorization: Basic` header (an `invalid_client` then answers 401 with a challenge) */
  basic: boolean;
}

/** Reads `Authorization: Basic` (RFC 6749 §2.3.1: form-encoded id and secret) or the body's client_id / client_secret. */
export function readClientCredentials(authorization: string | undefined, body: Record<string, unknown>): ClientCredentials {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      const decode = (s: string) => {
        try {
          return decodeURIComponent(s.replace(/\+/g, ' '));
        } catch {
          return s;
        }
      };
      return { clientId: decode(decoded.slice(0, colon)), clientSecret: decode(decoded.slice(colon + 1)), basic: true };
    }
  }
  return { clientId: str(body.client_id), clientSecret: str(body.client_secret), basic: false };
}

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in?: number;
  refresh_token?: string;
  scope: string;
  /** the organisation the token acts for (the Postiz token answer names it `id`) */
  id: string;
  organization_id: string;
}

/** Client authentication and token issuance, shared by the token endpoint's grants and the device flow. */
export function createOauthCore(deps: { oauth: OauthRepository; clock: Clock; accessTokenTtlMs: number }) {
  const { oauth, clock } = deps;

  const invalidClient = () => new OAuthError('invalid_client', 'Client authentication failed', 401);

  return {
    /**
     * The client a token request comes from. Confidential clients must prove their secret;
     * public clients send only their id (and must not send a secret).
     */
    async authenticateClient(creds: ClientCredentials): Promise<ClientRow> {
      if (!creds.clientId) throw new OAuthError('invalid_client', 'client_id is required (in the body, or with client_secret in an Authorization: Basic header)', 401);
      const client = await oauth.findClientByClientId(creds.clientId);
      if (!client) {
        // the same work as for a real client, so timing does not tell which ids exist
        safeEqual(creds.clientSecret ?? '', 'no-such-client');
        throw invalidClient();
      }
      if (client.kind === 'public') {
        if (creds.clientSecret) throw new OAuthError('invalid_client', 'This is a public client: send no client_secret', 401);
        return client;
      }
      if (!creds.clientSecret || !client.secretHash || !safeEqual(hashCredential(creds.clientSecret), client.secretHash)) throw invalidClient();
      return client;
    },

    /**
     * Issues an access token for the grant, and a refresh token unless told not to. Access tokens
     * never expire unless OAUTH_ACCESS_TOKEN_TTL is set (existing Postiz clients never refresh).
     */
    async issueTokens(tx: Tx, grant: GrantRow, client: ClientRow, opts: { refresh: boolean; scope?: string }): Promise<IssuedTokens> {
      // a refresh may ask for less than the grant holds: that access token carries the narrower scope
      const scope = opts.scope ?? grant.scope;
      const now = clock.now();
      const accessToken = newAccessToken();
      const expiresAt = deps.accessTokenTtlMs > 0 ? new Date(now + deps.accessTokenTtlMs) : null;
      const row = await oauth.insertAccessToken(tx, {
        organizationId: grant.organizationId,
        tokenHash: hashCredential(accessToken),
        prefix: visiblePrefix(accessToken),
        clientId: client.clientId,
        grantId: grant.id,
        scope,
        expiresAt,
      });
      let refreshToken: string | undefined;
      if (opts.refresh) {
        refreshToken = newRefreshToken();
        await oauth.insertRefreshToken(tx, { tokenHash: hashCredential(refreshToken), grantId: grant.id, accessTokenId: row.id });
      }
      return {
        access_token: accessToken,
        token_type: 'Bearer',
        ...(expiresAt ? { expires_in: Math.round(deps.accessTokenTtlMs / 1000) } : {}),
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
        scope,
        id: grant.organizationId,
        organization_id: grant.organizationId,
      };
    },
  };
}

export type OauthCore = ReturnType<typeof createOauthCore>;
