import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { ChannelsRepository, IntegrationRow } from './channels.repository.js';
import { withSignal, type PlatformHttpClient } from '../../platforms/http.js';
import {
  isPlatformIdentifier,
  PlatformError,
  type Credentials,
  type OperationContext,
  type PlatformAdapter,
  type PlatformIdentifier,
} from '../../platforms/platform.js';

export interface ChannelAccessDeps {
  channels: Pick<ChannelsRepository, 'findLiveChannel' | 'replaceCredentials' | 'markRefreshNeeded'>;
  adapters: Record<PlatformIdentifier, PlatformAdapter>;
  http: PlatformHttpClient;
  secretBox: SecretBox;
  clock: Clock;
  logger: OperationContext['logger'];
  /** writes an organisation notification */
  notify: (organizationId: string, content: string) => Promise<unknown>;
  openMedia: OperationContext['openMedia'];
  timeoutMs: number;
  /** tokens expiring sooner than this are refreshed before use */
  refreshAheadMs?: number;
  /** the sandbox (issue 28): absent when the deployment turned it off (SANDBOX=off) */
  sandbox?: SandboxAccess;
}

/** How sandbox channels reach their platform: the same adapters' code, configured with the sandbox's apps, through a client that reaches the simulator only. */
export interface SandboxAccess {
  adapters: Record<PlatformIdentifier, PlatformAdapter>;
  http(organizationId: string, identifier: PlatformIdentifier): PlatformHttpClient;
  /** the organisation's simulator of the platform is running and has this channel's account (after a restart, the channel is taken back first) */
  prepare(organizationId: string, identifier: PlatformIdentifier): Promise<void>;
}

/**
 * The one way to run a platform operation on a stored channel: it opens the credentials,
 * refreshes them ahead of expiry and once on `auth_expired`, stores rotated tokens without
 * losing a concurrent refresh (compare-and-set), and when the grant is gone marks the channel
 * `refreshNeeded` and notifies the organisation. Credentials never leave this module decrypted.
 */
export function createChannelAccess(deps: ChannelAccessDeps) {
  const refreshAhead = deps.refreshAheadMs ?? 5 * 60_000;

  function sandboxOf(): SandboxAccess {
    if (!deps.sandbox) throw new PlatformError('unsupported', 'The sandbox is turned off on this server (SANDBOX=off): sandbox channels cannot publish');
    return deps.sandbox;
  }

  function adapterOf(row: IntegrationRow): PlatformAdapter {
    if (!isPlatformIdentifier(row.identifier)) throw new PlatformError('unsupported', `Unknown platform ${row.identifier}`);
    return row.sandbox ? sandboxOf().adapters[row.identifier] : deps.adapters[row.identifier];
  }

  /** A sandbox channel's row once its simulator runs (a restarted one has just given it new credentials). */
  async function current(row: IntegrationRow): Promise<IntegrationRow> {
    if (!row.sandbox) return row;
    await sandboxOf().prepare(row.organizationId, row.identifier as PlatformIdentifier);
    return (await deps.channels.findLiveChannel(row.id)) ?? row;
  }

  function contextFor(row: IntegrationRow, credentials: Credentials, signal: AbortSignal): OperationContext {
    const http = row.sandbox ? sandboxOf().http(row.organizationId, row.identifier as PlatformIdentifier) : deps.http;
    return {
      credentials,
      instanceUrl: row.instanceUrl,
      http: withSignal(http, signal),
      logger: deps.logger,
      clock: deps.clock,
      signal,
      openMedia: deps.openMedia,
    };
  }

  async function giveUp(row: IntegrationRow, reason: string): Promise<never> {
    if (await deps.channels.markRefreshNeeded(row.id, new Date(deps.clock.now()))) {
      await deps.notify(row.organizationId, `Channel ${row.name} (${row.identifier}) must be reconnected: ${reason}`);
    }
    throw new PlatformError('reconnect_required', `The channel must be reconnected: ${reason}`);
  }

  /** Refreshes and stores; returns the credentials to use (ours, or a concurrent refresher's). */
  async function refresh(row: IntegrationRow, sealed: string, signal: AbortSignal): Promise<{ sealed: string; credentials: Credentials }> {
    const adapter = adapterOf(row);
    const current = JSON.parse(deps.secretBox.open(sealed)) as Credentials;
    try {
      const next = await adapter.refresh!(contextFor(row, current, signal));
      const nextSealed = deps.secretBox.seal(JSON.stringify(next.credentials));
      if (await deps.channels.replaceCredentials(row.id, sealed, nextSealed, next.expiresAt ?? null, new Date(deps.clock.now()))) {
        return { sealed: nextSealed, credentials: next.credentials };
      }
    } catch (e) {
      if (!(e instanceof PlatformError) || (e.kind !== 'reconnect_required' && e.kind !== 'auth_expired')) throw e;
      // With rotating refresh tokens, a refresh that lost a race fails: use the winner's tokens.
      const fresh = await deps.channels.findLiveChannel(row.id);
      if (!fresh?.credentials || fresh.credentials === sealed) return giveUp(row, e.message);
      return { sealed: fresh.credentials, credentials: JSON.parse(deps.secretBox.open(fresh.credentials)) as Credentials };
    }
    // Someone else stored newer credentials meanwhile: theirs win.
    const fresh = await deps.channels.findLiveChannel(row.id);
    if (!fresh?.credentials) return giveUp(row, 'the channel was disconnected');
    return { sealed: fresh.credentials, credentials: JSON.parse(deps.secretBox.open(fresh.credentials)) as Credentials };
  }

  return {
    adapterOf,

    /**
     * Renews the channel's token now, whether or not it is about to be used (the token keeper:
     * tokens that can only be renewed while still valid). A grant that is gone marks the channel
     * `refreshNeeded` and notifies, as a refresh before a publish does.
     */
    async renew(given: IntegrationRow, signal = AbortSignal.timeout(deps.timeoutMs)): Promise<void> {
      if (given.sandbox && !deps.sandbox) return;
      const row = await current(given);
      const adapter = adapterOf(row);
      if (!adapter.refresh || !row.credentials || row.refreshNeeded) return;
      await refresh(row, row.credentials, signal);
    },

    /**
     * Runs `op` with the channel's credentials, refreshing as needed. `op` may run twice (once
     * more after a refresh), so it must be safe to repeat when the first call failed with
     * `auth_expired` — the platform refused it, nothing was done.
     */
    async run<T>(given: IntegrationRow, op: (adapter: PlatformAdapter, ctx: OperationContext) => Promise<T>, signal = AbortSignal.timeout(deps.timeoutMs)): Promise<T> {
      const row = await current(given);
      const adapter = adapterOf(row);
      if (!row.credentials) throw new PlatformError('reconnect_required', 'The channel has no stored credentials');
      if (row.refreshNeeded) throw new PlatformError('reconnect_required', 'The channel must be reconnected first');
      let sealed = row.credentials;
      let credentials = JSON.parse(deps.secretBox.open(sealed)) as Credentials;
      const expiresSoon = row.tokenExpiresAt !== null && row.tokenExpiresAt.getTime() - deps.clock.now() < refreshAhead;
      if (adapter.refresh && expiresSoon) ({ sealed, credentials } = await refresh(row, sealed, signal));
      try {
        return await op(adapter, contextFor(row, credentials, signal));
      } catch (e) {
        if (!(e instanceof PlatformError)) throw e;
        if (e.kind === 'reconnect_required') return giveUp(row, e.message);
        if (e.kind !== 'auth_expired') throw e;
        if (!adapter.refresh) return giveUp(row, e.message);
        const refreshed = await refresh(row, sealed, signal);
        return op(adapter, contextFor(row, refreshed.credentials, signal));
      }
    },
  };
}

export type ChannelAccess = ReturnType<typeof createChannelAccess>;
