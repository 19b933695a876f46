import { randomBytes } from 'node:crypto';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { hashCredential, newUserCode, normalizeUserCode } from '../../lib/tokens.js';
import type { FailureThrottle } from '../../rate-limit/failure-throttle.js';
import type { SessionContext } from '../sessions/sessions.service.js';
import { OAuthError, parseScope, SCOPES, type ClientCredentials, type IssuedTokens, type OauthCore } from './oauth-core.js';
import type { ClientRow, DeviceRow, OauthRepository } from './oauth.repository.js';
import { recordApproval, type OauthService } from './oauth.service.js';
import type { ActivityRecorder } from '../../core/activity.js';

const DEVICE_CODE_LIFETIME_S = 900;
/** RFC 8628 §3.5: a client polling too fast is told `slow_down` and must add 5 s to its interval. */
const SLOW_DOWN_STEP_S = 5;

/** The built-in public client of the Postiz CLI's device login (seeded by migration 0009). */
export const POSTIZ_CLI_CLIENT_ID = 'postiz-cli';

/** How a poll is answered: RFC 8628 (`/oauth/token`) or the Postiz CLI's protocol (`/device/token`). */
export type PollDialect = 'rfc8628' | 'postiz';

/**
 * Device authorisation (RFC 8628) and the protocol the official `postiz` CLI speaks
 * (`POST /device/code`, `POST /device/token`). A command-line client gets a device code to poll
 * with and a short user code; a signed-in owner or admin types the user code on the
 * verification page and chooses the organisation; the next poll answers the token, once.
 */
export function createDeviceService(deps: {
  oauth: OauthRepository;
  core: OauthCore;
  grants: Pick<OauthService, 'grantingMembership'>;
  clock: Clock;
  /** the activity log: approving a device login is recorded as the person (issue 31) */
  activity?: ActivityRecorder;
  publicUrl: string;
  intervalSeconds: number;
  /** wrong user codes typed on the verification page, per person and per address */
  codeThrottle: FailureThrottle;
}) {
  const { oauth, clock } = deps;
  const verificationUri = `${deps.publicUrl}/device/verify`;

  async function start(client: ClientRow, scope: string) {
    const deviceCode = randomBytes(32).toString('hex');
    const at = clock.now();
    // A user code collides rarely (20^8 values, few live at once); try again then.
    for (let i = 0; i < 5; i++) {
      const userCode = newUserCode();
      const row = await oauth.insertDevice({
        deviceCodeHash: hashCredential(deviceCode),
        userCode,
        clientId: client.id,
        scope,
        intervalSeconds: deps.intervalSeconds,
        expiresAt: new Date(at + DEVICE_CODE_LIFETIME_S * 1000),
      });
      if (row) {
        return {
          device_code: deviceCode,
          user_code: userCode,
          verification_uri: verificationUri,
          verification_uri_complete: `${verificationUri}?code=${encodeURIComponent(userCode)}`,
          expires_in: DEVICE_CODE_LIFETIME_S,
          interval: deps.intervalSeconds,
        };
      }
    }
    throw new Error('could not allocate a free user code');
  }

  /** A live (pending, unexpired) device authorisation by the code a person typed, or a reason why not. */
  async function findPending(typed: string): Promise<DeviceRow | undefined> {
    const userCode = normalizeUserCode(typed);
    if (!userCode) return undefined;
    const row = await oauth.findDeviceByUserCode(userCode);
    if (!row || row.status !== 'pending' || row.expiresAt.getTime() <= clock.now()) return undefined;
    return row;
  }

  return {
    /** The client asking for a device code (public clients send their client_id only). */
    authenticate: (creds: ClientCredentials) => deps.core.authenticateClient(creds),

    /** RFC 8628 §3.1: a device authorisation for the client (public clients: client_id only). */
    async authorize(client: ClientRow, scopeParam: string | undefined) {
      return start(client, parseScope(scopeParam));
    },

    /** The Postiz CLI's `POST /device/code`: no client id is sent; the built-in CLI client is meant. */
    async startForPostizCli() {
      const client = await oauth.findClientByClientId(POSTIZ_CLI_CLIENT_ID);
      if (!client) throw new Error(`the built-in client ${POSTIZ_CLI_CLIENT_ID} is missing (migration 0009)`);
      return start(client, 'api');
    },

    /**
     * One poll. RFC 8628 answers `authorization_pending`, `slow_down` (polled before the interval
     * passed), `access_denied`, `expired_token`; the Postiz dialect answers the same states with
     * its own names and never `slow_down` (its CLI gives up on any error it does not know). The
     * token is handed out once: later polls find the code spent.
     */
    async poll(deviceCode: string | undefined, dialect: PollDialect, client?: ClientRow): Promise<IssuedTokens & { api_url: string }> {
      const invalid = () => (dialect === 'postiz' ? new OAuthError('invalid_device_code', 'Unknown device code') : new OAuthError('invalid_grant', 'Unknown or spent device code'));
      if (!deviceCode) throw new OAuthError('invalid_request', 'device_code is required');
      const at = clock.now();
      const outcome = await oauth.transaction(async (tx) => {
        const row = await oauth.lockDevice(tx, { deviceCodeHash: hashCredential(deviceCode) });
        if (!row || (client && row.clientId !== client.id)) return { error: invalid() };
        if (row.status === 'consumed') return { error: invalid() };
        if (row.expiresAt.getTime() <= at) return { error: new OAuthError('expired_token', 'The device code has expired: start the login again') };
        if (row.status === 'denied') return { error: new OAuthError('access_denied', 'The person declined') };
        if (row.status === 'pending') {
          const early = row.lastPolledAt && at - row.lastPolledAt.getTime() < row.intervalSeconds * 1000;
          await oauth.updateDevice(tx, row.id, {
            lastPolledAt: new Date(at),
            ...(early && dialect === 'rfc8628' ? { intervalSeconds: row.intervalSeconds + SLOW_DOWN_STEP_S } : {}),
          });
          if (early && dialect === 'rfc8628') return { error: new OAuthError('slow_down', `Poll at most every ${row.intervalSeconds + SLOW_DOWN_STEP_S} s`) };
          return { error: new OAuthError('authorization_pending', 'Waiting for the person to approve') };
        }
        // approved: hand the token out once
        const grant = row.grantId ? await oauth.findGrantForUpdate(tx, row.grantId) : undefined;
        if (!grant || grant.revokedAt) {
          await oauth.updateDevice(tx, row.id, { status: 'consumed' });
          return { error: new OAuthError('access_denied', 'The approval was revoked') };
        }
        const appClient = client ?? (await oauth.findClientById(row.clientId, tx));
        await oauth.updateDevice(tx, row.id, { status: 'consumed', lastPolledAt: new Date(at) });
        return { tokens: await deps.core.issueTokens(tx, grant, appClient!, { refresh: dialect === 'rfc8628' }) };
      });
      if (outcome.error) throw outcome.error;
      return { ...outcome.tokens, api_url: deps.publicUrl };
    },

    /** What the verification page shows for a typed code: the app and what it asks for. */
    async describe(session: SessionContext, typed: string, ip: string) {
      const keys = [`device:user:${session.userId}`, `device:ip:${ip}`];
      const wait = await deps.codeThrottle.waitSeconds(keys);
      if (wait > 0) {
        throw new AppError('LOGIN_THROTTLED', `Too many wrong codes; try again in ${Math.ceil(wait / 60)} minutes`, { headers: { 'retry-after': String(wait) } });
      }
      const row = await findPending(typed);
      if (!row) {
        await deps.codeThrottle.recordFailure(keys);
        throw new AppError('NOT_FOUND', 'This code is not valid (mistyped, already used, or older than 15 minutes): check it, or start the login again');
      }
      const client = await oauth.findClientById(row.clientId);
      return { userCode: row.userCode, clientName: client?.name ?? 'Unknown app', clientOrigin: client?.origin, scopes: row.scope.split(' ').map((s) => SCOPES[s] ?? s) };
    },

    /**
     * The person approves (for one organisation where they are owner or admin) or declines. The
     * grant is made now; the token at the client's next poll.
     */
    async decide(session: SessionContext, input: { userCode: string; organizationId: string; approve: boolean }) {
      const code = normalizeUserCode(input.userCode);
      const row = code ? await oauth.findDeviceByUserCode(code) : undefined;
      if (!row) throw new AppError('NOT_FOUND', 'This code is not valid any more: start the login again');
      if (input.approve) await deps.grants.grantingMembership(input.organizationId, session.userId);
      const at = new Date(clock.now());
      await oauth.transaction(async (tx) => {
        const locked = await oauth.lockDevice(tx, { id: row.id });
        if (!locked || locked.status !== 'pending' || locked.expiresAt <= at) throw new AppError('NOT_FOUND', 'This code is not valid any more: start the login again');
        if (!input.approve) {
          await oauth.updateDevice(tx, locked.id, { status: 'denied', userId: session.userId, decidedAt: at });
          return;
        }
        const grant = await oauth.insertGrant(tx, { clientId: locked.clientId, organizationId: input.organizationId, userId: session.userId, scope: locked.scope });
        await oauth.touchClientApproved(tx, locked.clientId, at);
        await oauth.updateDevice(tx, locked.id, { status: 'approved', userId: session.userId, organizationId: input.organizationId, grantId: grant.id, decidedAt: at });
        const client = await oauth.findClientById(locked.clientId, tx);
        await recordApproval(deps.activity, session, { organizationId: input.organizationId, clientId: locked.clientId, clientName: client?.name ?? 'An app', scope: locked.scope, via: 'device' }, tx);
      });
    },
  };
}

export type DeviceService = ReturnType<typeof createDeviceService>;
