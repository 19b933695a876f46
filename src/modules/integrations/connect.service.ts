import { NO_ACTIVITY, type ActivityRecorder } from '../../core/activity.js';
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { missingVariables } from './platforms.service.js';
import { AppError, fieldError, notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { isPlausibleHostname } from '../../lib/safe-address.js';
import { createPkce } from '../../platforms/common/oauth2.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { PlatformHttpClient } from '../../platforms/http.js';
import { withSignal } from '../../platforms/http.js';
import {
  isPlatformIdentifier,
  PlatformError,
  type ConnectedAccount,
  type Credentials,
  type OperationContext,
  type PlatformAdapter,
  type PlatformIdentifier,
} from '../../platforms/platform.js';
import { isConnectable } from '../../platforms/registry.js';
import type { PlansService } from '../plans/plans.service.js';
import type { ConnectStatesRepository } from './connect-states.repository.js';
import type { Integration } from './integrations.schemas.js';
import type { IntegrationsRepository } from './integrations.repository.js';
import { toIntegration } from './integrations.service.js';
import { defaultPostingTimes } from './default-posting-times.js';
import type { AuthContext } from '../auth/auth.service.js';

/** Who connects a channel, for the zone of its first posting times (none known: the organisation owner's). */
export interface ConnectingPerson {
  userId?: string;
  oauthTokenId?: string;
}

/** The person behind a request: the signed-in person, or whoever granted its OAuth token; an API key has none. */
export function connectingPersonOf(auth: AuthContext): ConnectingPerson {
  if (auth.session) return { userId: auth.session.userId };
  if (auth.credential.kind === 'oauth_token') return { oauthTokenId: auth.credential.id };
  return {};
}

export interface ConnectDeps {
  integrations: IntegrationsRepository;
  /** the activity log (none: nothing recorded) */
  activity?: ActivityRecorder;
  states: ConnectStatesRepository;
  /** names of the platform variables that are set (`config.ts` `setPlatformVariables`), for `deploymentApp` checks */
  setVariables: ReadonlySet<string>;
  publicUrl: string;
  plans: PlansService;
  adapters: Record<PlatformIdentifier, PlatformAdapter>;
  http: PlatformHttpClient;
  secretBox: SecretBox;
  clock: Clock;
  logger: OperationContext['logger'];
  /** how long one connect may talk to the platform */
  timeoutMs: number;
  /**
   * Set for the sandbox (issue 28): the account key of the sandbox channel being connected. The
   * channel is saved as a sandbox channel (`deps.http` then reaches the simulator only).
   */
  sandboxKey?: string;
}

/**
 * Connecting channels (API.md §5 Integrations): credential platforms verify what the user gives
 * against the platform before anything is stored; the same platform account connected twice
 * updates its channel.
 */
export function createConnectService(deps: ConnectDeps) {
  function adapterFor(identifier: string): PlatformAdapter {
    if (!isPlatformIdentifier(identifier)) {
      throw new AppError('VALIDATION_FAILED', `identifier: Unknown platform "${identifier}"`, {
        fields: [{ path: 'identifier', message: 'Unknown platform' }],
      });
    }
    const adapter = deps.adapters[identifier];
    if (!isConnectable(adapter)) {
      throw new AppError('PLATFORM_NOT_AVAILABLE', `Connecting ${adapter.metadata.displayName} is not available in this version yet`);
    }
    return adapter;
  }

  function context(): Omit<OperationContext, 'credentials'> {
    const signal = AbortSignal.timeout(deps.timeoutMs);
    return {
      http: withSignal(deps.http, signal),
      logger: deps.logger,
      clock: deps.clock,
      signal,
      openMedia: () => Promise.reject(new Error('no media while connecting')),
    };
  }

  const STATE_TTL_MS = 3600_000;
  const hashState = (state: string) => createHash('sha256').update(state).digest('hex');
  const callbackUrl = (identifier: string) => `${deps.publicUrl}/integrations/social/${identifier}/callback`;

  /** Saves the account's channel: a reconnect updates its channel, a new account passes the plan. */
  async function saveAccount(
    organizationId: string,
    identifier: string,
    account: ConnectedAccount,
    opts: { instanceUrl?: string | null; refreshIntegrationId?: string | null; by?: ConnectingPerson } = {},
  ): Promise<Integration> {
    let again = opts.refreshIntegrationId != null;
    if (opts.refreshIntegrationId) {
      const target = await deps.integrations.findIntegration(organizationId, opts.refreshIntegrationId);
      if (!target) throw notFound('Integration');
      if (target.integration.internalId !== account.internalId) {
        throw new AppError(
          'CONFLICT',
          `The account given is ${account.profile ?? account.name}, but the channel being reconnected is ${target.integration.profile ?? target.integration.name}: reconnect it with that account`,
        );
      }
    } else {
      const existing = await deps.integrations.findByAccount(organizationId, identifier, account.internalId);
      again = existing !== undefined;
      if (!existing) await deps.plans.assertWithinLimit(organizationId, 'channels', () => deps.integrations.countLiveIntegrations(organizationId));
      // A sandbox channel is never made live, nor a live one sandbox.
      else if (existing.sandbox !== (deps.sandboxKey !== undefined)) {
        throw new AppError('CONFLICT', `${account.profile ?? account.name} is already connected as a ${existing.sandbox ? 'sandbox' : 'live'} channel`);
      }
    }
    const now = deps.clock.now();
    // Set here rather than by the column's default (02:00, 06:40, 11:40 UTC, the reference's),
    // which would offer "next free slot" in the middle of most people's night.
    const zone = (await deps.integrations.findConnectingZone(organizationId, opts.by ?? {})) ?? 'UTC';
    const saved = await deps.integrations.upsertConnected({
      organizationId,
      identifier,
      internalId: account.internalId,
      name: account.name,
      profile: account.profile,
      picture: account.picture,
      credentials: deps.secretBox.seal(JSON.stringify(account.credentials)),
      tokenExpiresAt: account.expiresAt ?? null,
      instanceUrl: opts.instanceUrl ?? null,
      postingTimes: defaultPostingTimes(zone, now),
      sandbox: deps.sandboxKey !== undefined,
      sandboxKey: deps.sandboxKey ?? null,
      at: new Date(now),
    });
    const row = await deps.integrations.findIntegration(organizationId, saved.id);
    // The OAuth callback is outside the API's actor hook: the person connecting is named in the details.
    await (deps.activity ?? NO_ACTIVITY).record({
      organizationId,
      action: again ? 'channel.reconnected' : 'channel.connected',
      targetKind: 'channel',
      targetId: saved.id,
      targetName: account.name,
      details: { platform: identifier, ...(opts.by?.userId ? { by: opts.by.userId } : {}), ...(deps.sandboxKey !== undefined ? { sandbox: true } : {}) },
    });
    return toIntegration(row!.integration, row!.customer);
  }

  /** The channel a reconnect (`refresh=<id>`) names: one of the organisation's on this platform (404 otherwise). */
  async function refreshTarget(organizationId: string, identifier: string, refresh: string | undefined): Promise<string | null> {
    if (refresh === undefined) return null;
    const target = isUuid(refresh) ? await deps.integrations.findIntegration(organizationId, refresh) : undefined;
    if (!target || target.integration.identifier !== identifier) throw notFound('Integration');
    return target.integration.id;
  }

  /**
   * `https://mastodon.social/@me` → `https://mastodon.social`. What cannot be the address of a
   * server (no http(s) URL, a host that is not a DNS name or IP address) is refused here, without
   * a lookup: it is the caller's mistake, not the platform's failure.
   */
  function normaliseInstance(value: string | undefined): string {
    const raw = (value ?? '').trim();
    if (!raw) throw fieldError('instanceUrl', 'Required: the address of your instance, e.g. https://mastodon.social');
    const problem = () => fieldError('instanceUrl', 'Must be the address of your instance, e.g. https://mastodon.social');
    let url: URL;
    try {
      url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
    } catch {
      throw problem();
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || !isPlausibleHostname(url.hostname)) throw problem();
    return url.origin;
  }

  function openInstanceApp(row: { app: string } | undefined): Credentials | undefined {
    return row ? (JSON.parse(deps.secretBox.open(row.app)) as Credentials) : undefined;
  }

  return {
    /**
     * `GET /social/{identifier}`: credential platforms describe their form; OAuth platforms get a
     * single-use `state` (1 h, bound to the organisation), PKCE where supported, and the URL to open.
     */
    async beginConnect(
      organizationId: string,
      identifier: string,
      query: { refresh?: string; instanceUrl?: string },
      /** `appOrigin`: the address of this service the person's browser is at (a session's request), see `callbackOrigin` */
      opts: { appOrigin?: string } = {},
    ): Promise<{ url: string | null; credentials?: Record<string, unknown> }> {
      const adapter = adapterFor(identifier);
      const m = adapter.metadata;
      if (m.authKind === 'credentials' && m.credentials) {
        return { url: null, credentials: z.toJSONSchema(m.credentials, { io: 'input' }) };
      }
      if (!adapter.beginConnect) throw new AppError('PLATFORM_NOT_AVAILABLE', `Connecting ${m.displayName} is not available in this version yet`);
      // the deployment's app at the platform (metadata `deploymentApp`, as GET /platforms reports it)
      const missing = missingVariables(m, deps.setVariables);
      if (missing.length > 0) {
        throw new AppError('PLATFORM_APP_NOT_CONFIGURED', `${m.displayName} is not configured on this server: set ${missing.join(' and ')}`);
      }
      const refreshIntegrationId = await refreshTarget(organizationId, identifier, query.refresh);
      // The account is known only when the user comes back, so a new channel must fit the plan now.
      if (!refreshIntegrationId) {
        await deps.plans.assertWithinLimit(organizationId, 'channels', () => deps.integrations.countLiveIntegrations(organizationId));
      }
      const instanceUrl = m.instanceBased ? normaliseInstance(query.instanceUrl) : undefined;
      const known = instanceUrl ? await deps.states.findInstanceApp(identifier, instanceUrl) : undefined;
      const state = randomBytes(32).toString('base64url');
      const pkce = m.oauth?.pkce || m.authKind === 'instance-oauth2' ? createPkce() : undefined;
      let begun;
      try {
        begun = await adapter.beginConnect(
          { state, redirectUri: callbackUrl(identifier), codeChallenge: pkce?.challenge, instanceUrl, instanceApp: openInstanceApp(known) },
          context(),
        );
      } catch (e) {
        if (!(e instanceof PlatformError)) throw e;
        if (e.kind === 'unsupported') throw new AppError('PLATFORM_APP_NOT_CONFIGURED', `${m.displayName}: ${e.message}`);
        // The instance is the caller's choice, not ours: one that refuses, does not answer, fails or
        // throttles is a mistake in that field (400 saying what happened), never our 502.
        if (instanceUrl) throw fieldError('instanceUrl', instanceProblem(instanceUrl, e));
        throw new AppError('PLATFORM_UNREACHABLE', `${m.displayName} could not be reached: ${e.message}`);
      }
      if (instanceUrl && begun.instanceApp) {
        await deps.states.saveInstanceApp(identifier, instanceUrl, deps.secretBox.seal(JSON.stringify(begun.instanceApp)));
      }
      const now = deps.clock.now();
      await deps.states.insertState({
        stateHash: hashState(state),
        organizationId,
        identifier,
        codeVerifier: pkce ? deps.secretBox.seal(pkce.verifier) : null,
        refreshIntegrationId,
        instanceUrl: instanceUrl ?? null,
        appOrigin: opts.appOrigin !== undefined && opts.appOrigin !== new URL(deps.publicUrl).origin ? opts.appOrigin : null,
        createdAt: new Date(now),
        expiresAt: new Date(now + STATE_TTL_MS),
      });
      return { url: deps.http.rewriteUrl(begun.url) };
    },

    /**
     * Where the platform's redirect back should be finished. Platforms send the browser to the
     * callback at PUBLIC_URL (the address registered with them); when the person began at another
     * address of this server (127.0.0.1 while PUBLIC_URL says localhost), the page that finishes
     * must be on that origin, or it cannot reach the app's window (`window.opener` and
     * BroadcastChannel are same-origin only). Answers that origin, for a redirect there with the
     * same query, or undefined to finish here. Only a live state's recorded origin is ever
     * answered (never one from the request), so the callback is no open redirect; the state is
     * not used up, the page at the other origin does that.
     */
    async callbackOrigin(identifier: string, state: string | undefined, here: string | undefined): Promise<string | undefined> {
      if (!state) return undefined;
      const pending = await deps.states.findState(hashState(state), identifier, new Date(deps.clock.now()));
      return pending?.appOrigin && pending.appOrigin !== here ? pending.appOrigin : undefined;
    },

    /**
     * The platform's redirect back (`GET /integrations/social/{identifier}/callback`): the state
     * is consumed once, the code exchanged, the profile fetched and the channel saved.
     */
    async completeConnect(
      identifier: string,
      query: { code?: string; state?: string; error?: string; error_description?: string; [param: string]: string | string[] | undefined },
    ) {
      const adapter = adapterFor(identifier);
      if (!query.state) throw fieldError('state', 'Required');
      const pending = await deps.states.consumeState(hashState(query.state), identifier, new Date(deps.clock.now()));
      if (!pending) {
        throw new AppError('VALIDATION_FAILED', 'state: This connection link has expired or was already used; start again', {
          fields: [{ path: 'state', message: 'Expired or already used' }],
        });
      }
      if (query.error) {
        throw new AppError('VALIDATION_FAILED', `${adapter.metadata.displayName} did not grant access: ${query.error_description ?? query.error}`, {
          fields: [{ path: 'error', message: query.error }],
        });
      }
      // The grant is `code`, or the parameter the platform names instead (metadata `oauth.callbackCodeParam`).
      const codeParam = adapter.metadata.oauth?.callbackCodeParam ?? 'code';
      const code = query[codeParam];
      if (typeof code !== 'string' || code === '') throw fieldError(codeParam, 'Required');
      const callbackParams = Object.fromEntries(
        Object.entries(query).filter(
          (e): e is [string, string] => typeof e[1] === 'string' && !['code', 'state', 'error', 'error_description', codeParam].includes(e[0]),
        ),
      );
      if (!adapter.completeConnect) throw new AppError('PLATFORM_NOT_AVAILABLE', `Connecting ${adapter.metadata.displayName} is not available yet`);
      const known = pending.instanceUrl ? await deps.states.findInstanceApp(identifier, pending.instanceUrl) : undefined;
      let account;
      try {
        account = await adapter.completeConnect(
          {
            code,
            redirectUri: callbackUrl(identifier),
            codeVerifier: pending.codeVerifier ? deps.secretBox.open(pending.codeVerifier) : undefined,
            instanceUrl: pending.instanceUrl ?? undefined,
            instanceApp: openInstanceApp(known),
            ...(Object.keys(callbackParams).length > 0 ? { callbackParams } : {}),
          },
          context(),
        );
      } catch (e) {
        if (!(e instanceof PlatformError)) throw e;
        if (e.kind === 'transient' || e.kind === 'rate_limited') {
          throw new AppError('PLATFORM_UNREACHABLE', `${adapter.metadata.displayName} could not be reached to finish connecting: ${e.message}`);
        }
        throw new AppError('VALIDATION_FAILED', `${adapter.metadata.displayName} refused the connection: ${e.message}`, {
          fields: [{ path: codeParam, message: e.message }],
        });
      }
      // The platform's redirect carries no credential and the state records no person, so a
      // channel connected by OAuth starts with the posting times of the organisation owner's zone.
      const integration = await saveAccount(pending.organizationId, identifier, account, {
        instanceUrl: pending.instanceUrl,
        refreshIntegrationId: pending.refreshIntegrationId,
      });
      return { integration, platform: adapter.metadata.displayName };
    },

    /**
     * `POST /social/{identifier}`: verify the credentials with the platform, then save the channel.
     * With `refresh=<id>` the named channel gets the new credentials (the same account only).
     */
    async connectWithCredentials(
      organizationId: string,
      identifier: string,
      body: unknown,
      query: { refresh?: string } = {},
      by: ConnectingPerson = {},
    ): Promise<Integration> {
      const adapter = adapterFor(identifier);
      const schema = adapter.metadata.credentials;
      if (adapter.metadata.authKind !== 'credentials' || !schema || !adapter.connectWithCredentials) {
        throw new AppError('VALIDATION_FAILED', `identifier: ${adapter.metadata.displayName} connects through OAuth: use GET /social/${identifier}`, {
          fields: [{ path: 'identifier', message: 'This platform connects through OAuth' }],
        });
      }
      const refreshIntegrationId = await refreshTarget(organizationId, identifier, query.refresh);
      const parsed = schema.safeParse(body ?? {});
      if (!parsed.success) {
        const fields = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.') || 'body', message: i.message }));
        throw new AppError('VALIDATION_FAILED', fields.map((f) => `${f.path}: ${f.message}`).join('; '), { fields });
      }
      let account;
      try {
        account = await adapter.connectWithCredentials(parsed.data, context());
      } catch (e) {
        if (!(e instanceof PlatformError)) throw e;
        // A failure the adapter ties to a field (the server the caller typed in `service`,
        // `instanceUrl`, `siteUrl`…) is that field's problem whatever its kind.
        if ((e.kind === 'transient' || e.kind === 'rate_limited') && !e.details.field) {
          throw new AppError('PLATFORM_UNREACHABLE', `${adapter.metadata.displayName} could not be reached to check the credentials: ${e.message}`);
        }
        const path = e.details.field ?? Object.keys(schema.shape)[0] ?? 'body';
        throw fieldError(path, e.message);
      }
      return saveAccount(organizationId, identifier, account, { refreshIntegrationId, by });
    },
  };
}

export type ConnectService = ReturnType<typeof createConnectService>;

/** What went wrong with an instance the caller named, in words. */
function instanceProblem(instanceUrl: string, e: PlatformError): string {
  if (e.kind === 'rejected') return e.message;
  const host = new URL(instanceUrl).host;
  if (e.kind === 'rate_limited') return `${host} asks us to slow down (rate limited); try again later`;
  return `${host} could not be reached: ${e.message}`;
}
