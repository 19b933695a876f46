import { AppError, notFound, validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import { hashCredential, newAuthorizationCode, OAUTH_TOKEN_PREFIX } from '../../lib/tokens.js';
import type { AccountsRepository } from '../accounts/accounts.repository.js';
import type { SessionContext } from '../sessions/sessions.service.js';
import type { Tx } from '../../db/client.js';
import type { ActivityRecorder } from '../../core/activity.js';
import { runAsActor } from '../../core/actor.js';
import { accessChoice, checkResources, GRANTING_ROLES, OAuthError, parseScope, pkceMatches, redirectUriMatches, SCOPES, scopeWithin, type ClientCredentials, type IssuedTokens, type OauthCore } from './oauth-core.js';
import type { ClientRow, OauthRepository } from './oauth.repository.js';

const CODE_LIFETIME_MS = 10 * 60_000;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const GRANT_TYPES = {
  code: 'authorization_code',
  refresh: 'refresh_token',
  device: 'urn:ietf:params:oauth:grant-type:device_code',
} as const;

/** A checked authorisation request: what the consent page shows and its form sends back. */
export interface AuthorizationRequest {
  client: Pick<ClientRow, 'id' | 'clientId' | 'name' | 'logoUrl' | 'clientUri' | 'origin' | 'organizationId'>;
  /** the organisation that registered the app (null for self-registered and built-in apps) */
  clientOrganizationName: string | null;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  scope: string;
  scopeDescriptions: string[];
  /**
   * When the app asks to change things (`mcp:write`), the person chooses: `read` is the scope of
   * a read-only token, `write` the scope asked for. Undefined when there is nothing to choose.
   */
  access: { read: string; write: string; readDescriptions: string[]; writeDescriptions: string[] } | undefined;
}

/**
 * Why an authorisation request cannot go on. `redirect` is set once the client and its redirect
 * URI are known good: the error then goes back to the app (RFC 6749 §4.1.2.1); before that it is
 * shown to the person, never sent to an address nobody vouched for.
 */
export class AuthorizeError extends Error {
  constructor(
    message: string,
    readonly redirect?: string,
  ) {
    super(message);
    this.name = 'AuthorizeError';
  }
}

type Query = Record<string, string | undefined>;

/** The request's RFC 8707 resource indicators (the consent page carries several space-separated). */
const resourcesOf = (value: string | undefined) => (value ?? '').split(' ').filter(Boolean);
const describeScope = (scope: string) => scope.split(' ').map((s) => SCOPES[s]!);

/**
 * The OAuth 2.1 authorisation server (issue 15): authorisation code with PKCE S256, token
 * endpoint (code, refresh with rotation and reuse detection; device codes are in
 * device.service.ts), revocation, the person's approved apps.
 */
/** `oauth_app.approved` in the organisation's activity log, as the person who approved it. */
export async function recordApproval(
  activity: ActivityRecorder | undefined,
  session: SessionContext,
  input: { organizationId: string; clientId: string; clientName: string; scope: string; via: 'consent' | 'device' },
  tx?: Tx,
) {
  if (!activity) return;
  await runAsActor({ kind: 'user', id: session.userId, name: session.name.trim() || session.email }, () =>
    activity.record({ organizationId: input.organizationId, action: 'oauth_app.approved', targetKind: 'oauth_app', targetId: input.clientId, targetName: input.clientName, details: { scope: input.scope, via: input.via } }, tx),
  );
}

export function createOauthService(deps: {
  oauth: OauthRepository;
  core: OauthCore;
  accounts: AccountsRepository;
  clock: Clock;
  /** the activity log: a person approving an app for an organisation is recorded (issue 31) */
  activity?: ActivityRecorder;
  issuer: string;
  /** tell the API's credential cache that these access tokens stopped working */
  onTokensRevoked(tokenIds: string[]): void;
}) {
  const { oauth, core, accounts, clock } = deps;
  const now = () => new Date(clock.now());

  function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
    const url = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    // RFC 9207: the issuer in every answer, so a client talking to several servers cannot be mixed up
    url.searchParams.set('iss', deps.issuer);
    return url.toString();
  }

  async function grantingMembership(organizationId: string, userId: string) {
    const m = isUuid(organizationId) ? await accounts.findMembership(organizationId, userId) : undefined;
    if (!m) throw notFound('Organization');
    if (!GRANTING_ROLES.includes(m.role)) throw new AppError('FORBIDDEN', `Only owners and admins of ${m.name} can give apps access to it; you are a ${m.role}`);
    return m;
  }

  /** Checks an authorisation request (RFC 6749 §4.1.1 as OAuth 2.1 profiles it: code + PKCE S256 only). */
  async function checkAuthorizationRequest(q: Query): Promise<AuthorizationRequest> {
    if (!q.client_id) throw new AuthorizeError('The app did not say who it is (client_id is missing).');
    const client = await oauth.findClientByClientId(q.client_id);
    if (!client) throw new AuthorizeError('This app is not registered here (unknown client_id), or it was deleted.');
    const registered = client.redirectUris;
    let redirectUri: string | undefined;
    if (q.redirect_uri !== undefined) {
      // exact string match (OAuth 2.1 §2.3.1): no prefix, no pattern; any port on loopback (RFC 8252 §7.3)
      if (!registered.some((r) => redirectUriMatches(r, q.redirect_uri!))) throw new AuthorizeError('The app asked to send you back to an address it did not register (redirect_uri mismatch).');
      redirectUri = q.redirect_uri;
    } else if (registered.length === 1) {
      redirectUri = registered[0];
    } else {
      throw new AuthorizeError(registered.length === 0 ? 'This app cannot use sign-in redirects (it has no redirect URI).' : 'The app did not say where to send you back (redirect_uri is missing).');
    }
    const fail = (error: string, description: string) => new AuthorizeError(description, redirectWith(redirectUri!, { error, error_description: description, state: q.state }));
    if (q.response_type !== 'code') throw fail('unsupported_response_type', 'response_type must be "code"');
    if (!q.code_challenge) throw fail('invalid_request', 'code_challenge is required (PKCE with S256)');
    if (q.code_challenge_method !== 'S256') throw fail('invalid_request', 'code_challenge_method must be S256');
    if (!CHALLENGE.test(q.code_challenge)) throw fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters)');
    if (q.state !== undefined && q.state.length > 2000) throw fail('invalid_request', 'state is longer than 2000 characters');
    let scope: string;
    try {
      checkResources(resourcesOf(q.resource), deps.issuer);
      scope = parseScope(q.scope);
    } catch (e) {
      if (e instanceof OAuthError) throw fail(e.error, e.description);
      throw e;
    }
    const clientOrganizationName = client.organizationId ? ((await oauth.findOrganizationName(client.organizationId)) ?? null) : null;
    const choice = accessChoice(scope);
    return {
      client,
      clientOrganizationName,
      redirectUri: redirectUri!,
      state: q.state,
      codeChallenge: q.code_challenge,
      scope,
      scopeDescriptions: describeScope(scope),
      access: choice && { ...choice, readDescriptions: describeScope(choice.read), writeDescriptions: describeScope(choice.write) },
    };
  }

  /** Consumes an authorisation code (once), checks it against the client, redirect URI and verifier. */
  async function exchangeCode(client: ClientRow, body: Query): Promise<IssuedTokens> {
    if (!body.code) throw new OAuthError('invalid_request', 'code is required');
    if (!body.code_verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
    checkResources(resourcesOf(body.resource), deps.issuer);
    const at = now();
    const outcome = await oauth.transaction(async (tx) => {
      const code = await oauth.lockCode(tx, hashCredential(body.code!));
      if (!code || code.clientId !== client.id) return { error: new OAuthError('invalid_grant', 'The code is not valid for this client') };
      if (code.usedAt) {
        // A code used twice was stolen or replayed: what the first use issued is revoked (OAuth 2.1 §4.1.3).
        const revoked = code.grantId ? await oauth.revokeGrant(tx, code.grantId, at, 'authorisation code replayed') : [];
        return { error: new OAuthError('invalid_grant', 'The code was already used; the tokens issued with it are revoked'), revoked };
      }
      if (code.expiresAt <= at) return { error: new OAuthError('invalid_grant', 'The code has expired (codes live 10 minutes)') };
      if (body.redirect_uri !== undefined && body.redirect_uri !== code.redirectUri) return { error: new OAuthError('invalid_grant', 'redirect_uri does not match the authorisation request') };
      if (!pkceMatches(body.code_verifier!, code.codeChallenge)) return { error: new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge') };
      const member = await accounts.findMembership(code.organizationId, code.userId, tx);
      if (!member || !GRANTING_ROLES.includes(member.role)) return { error: new OAuthError('invalid_grant', 'The person who approved is no longer an owner or admin of the organisation') };
      const grant = await oauth.insertGrant(tx, { clientId: client.id, organizationId: code.organizationId, userId: code.userId, scope: code.scope });
      await oauth.markCodeUsed(tx, code.id, grant.id, at);
      await oauth.touchClientApproved(tx, client.id, at);
      return { tokens: await core.issueTokens(tx, grant, client, { refresh: true }) };
    });
    if ('revoked' in outcome && outcome.revoked) deps.onTokensRevoked(outcome.revoked);
    if (outcome.error) throw outcome.error;
    return outcome.tokens;
  }

  /**
   * Rotates a refresh token: the presented one is spent, its access token retired, a new pair
   * issued. A spent one presented again revokes the whole grant (reuse detection).
   */
  async function refresh(client: ClientRow, body: Query): Promise<IssuedTokens> {
    if (!body.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
    // a refresh may narrow the scope (RFC 6749 §6), never widen it: checked against the grant below
    const narrowed = body.scope === undefined ? undefined : parseScope(body.scope);
    checkResources(resourcesOf(body.resource), deps.issuer);
    const at = now();
    const outcome = await oauth.transaction(async (tx) => {
      const found = await oauth.lockRefreshToken(tx, hashCredential(body.refresh_token!));
      if (!found || found.client.id !== client.id) return { error: new OAuthError('invalid_grant', 'The refresh token is not valid for this client') };
      const { refresh, grant } = found;
      if (grant.revokedAt || refresh.revokedAt) return { error: new OAuthError('invalid_grant', 'The refresh token was revoked') };
      if (refresh.usedAt) {
        const revoked = await oauth.revokeGrant(tx, grant.id, at, 'refresh token reused');
        return { error: new OAuthError('invalid_grant', 'The refresh token was already used: every token of this grant is now revoked'), revoked };
      }
      const member = await accounts.findMembership(grant.organizationId, grant.userId, tx);
      if (!member) {
        const revoked = await oauth.revokeGrant(tx, grant.id, at, 'no longer a member');
        return { error: new OAuthError('invalid_grant', 'The person who approved is no longer a member of the organisation'), revoked };
      }
      if (narrowed !== undefined && !scopeWithin(narrowed, grant.scope)) {
        return { error: new OAuthError('invalid_scope', `scope "${narrowed}" asks for more than was granted ("${grant.scope}")`) };
      }
      await oauth.markRefreshUsed(tx, refresh.id, at);
      const retired = refresh.accessTokenId && (await oauth.revokeAccessToken(refresh.accessTokenId, at, tx)) ? [refresh.accessTokenId] : [];
      return { tokens: await core.issueTokens(tx, grant, found.client, { refresh: true, scope: narrowed }), revoked: retired };
    });
    if (outcome.revoked?.length) deps.onTokensRevoked(outcome.revoked);
    if (outcome.error) throw outcome.error;
    return outcome.tokens;
  }

  return {
    checkAuthorizationRequest,

    /**
     * The person's answer on the consent page. Approving needs the owner or admin role in the
     * chosen organisation; the code is bound to the client, redirect URI, challenge and person.
     * Answers where to send the browser.
     */
    async decide(session: SessionContext, q: Query, decision: { approve: boolean; organizationId: string; access?: string }): Promise<string> {
      const request = await checkAuthorizationRequest(q);
      if (!decision.approve) return redirectWith(request.redirectUri, { error: 'access_denied', error_description: 'The person declined', state: request.state });
      let scope = request.scope;
      if (request.access) {
        // the person chose; the token carries what they approved, never more
        if (decision.access !== 'read' && decision.access !== 'write') throw validationError([{ path: 'access', message: 'Choose read only or read and write' }]);
        scope = request.access[decision.access];
      }
      await grantingMembership(decision.organizationId, session.userId);
      const code = newAuthorizationCode();
      const at = clock.now();
      await oauth.insertCode({
        codeHash: hashCredential(code),
        clientId: request.client.id,
        organizationId: decision.organizationId,
        userId: session.userId,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        scope,
        expiresAt: new Date(at + CODE_LIFETIME_MS),
      });
      await recordApproval(deps.activity, session, { organizationId: decision.organizationId, clientId: request.client.id, clientName: request.client.name, scope, via: 'consent' });
      return redirectWith(request.redirectUri, { code, state: request.state });
    },

    /** The token endpoint (RFC 6749 §3.2), for the code and refresh grants; `device` handles device codes. */
    async token(creds: ClientCredentials, body: Query, device: (client: ClientRow, body: Query) => Promise<IssuedTokens>): Promise<IssuedTokens> {
      if (!body.grant_type) throw new OAuthError('invalid_request', 'grant_type is required');
      if (!Object.values(GRANT_TYPES).includes(body.grant_type as never)) throw new OAuthError('unsupported_grant_type', `grant_type must be one of ${Object.values(GRANT_TYPES).join(', ')}`);
      const client = await core.authenticateClient(creds);
      if (body.grant_type === GRANT_TYPES.code) return exchangeCode(client, body);
      if (body.grant_type === GRANT_TYPES.refresh) return refresh(client, body);
      return device(client, body);
    },

    /**
     * RFC 7009. An access token is revoked alone; a refresh token takes its whole grant with it.
     * Unknown tokens answer like known ones (nothing to tell an attacker).
     */
    async revoke(creds: ClientCredentials, body: Query): Promise<void> {
      const client = await core.authenticateClient(creds);
      if (!body.token) throw new OAuthError('invalid_request', 'token is required');
      const hash = hashCredential(body.token);
      const at = now();
      const asAccess = body.token.startsWith(OAUTH_TOKEN_PREFIX) ? await oauth.findAccessToken(hash) : undefined;
      if (asAccess) {
        if (asAccess.clientId !== client.id) throw new OAuthError('unauthorized_client', 'This token was not issued to this client');
        if (await oauth.revokeAccessToken(asAccess.token.id, at)) deps.onTokensRevoked([asAccess.token.id]);
        return;
      }
      const asRefresh = await oauth.findRefreshToken(hash);
      if (asRefresh) {
        if (asRefresh.clientId !== client.id) throw new OAuthError('unauthorized_client', 'This token was not issued to this client');
        deps.onTokensRevoked(await oauth.transaction((tx) => oauth.revokeGrant(tx, asRefresh.refresh.grantId, at, 'refresh token revoked by the app')));
      }
    },

    /** The apps the person let act for an organisation, with the last time each was used. */
    listApprovedApps: (session: SessionContext) => oauth.listUserGrants(session.userId),

    async revokeApprovedApp(session: SessionContext, grantId: string) {
      const revoked = isUuid(grantId) ? await oauth.revokeUserGrant(session.userId, grantId, now()) : undefined;
      if (revoked === undefined) throw notFound('Approved app');
      deps.onTokensRevoked(revoked);
    },

    grantingMembership,
  };
}

export type OauthService = ReturnType<typeof createOauthService>;
