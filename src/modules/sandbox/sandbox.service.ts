import { randomBytes } from 'node:crypto';
import { AppError, fieldError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { PLATFORM_IDENTIFIERS, type PlatformAdapter, type PlatformIdentifier } from '../../platforms/platform.js';
import type { SandboxAccount, SandboxFeedItem } from '../../platforms/sandbox/kit.js';
import type { SandboxPlatforms } from '../../platforms/sandbox/sandbox.js';
import type { ConnectingPerson, ConnectService } from '../integrations/connect.service.js';
import type { Integration } from '../integrations/integrations.schemas.js';
import type { SandboxRepository } from './sandbox.repository.js';

export interface SandboxServiceDeps {
  /** undefined when the deployment turned the sandbox off (SANDBOX=off) */
  platforms: SandboxPlatforms | undefined;
  repository: SandboxRepository;
  /** the connect service of one sandbox account: the sandbox's adapters, the organisation's simulator, saving a sandbox channel */
  connectService(organizationId: string, identifier: PlatformIdentifier, sandboxKey: string): ConnectService;
  adapters: Record<PlatformIdentifier, PlatformAdapter>;
  clock: Clock;
  logger: { warn(obj: unknown, msg?: string): void };
}

export const SANDBOX_FAULTS = ['revoked', 'rate_limited', 'media_refused', 'duplicate', 'down', 'slow'] as const;
export type SandboxFaultKind = (typeof SANDBOX_FAULTS)[number];

/** Sandbox channels (issue 28): connect one of any platform, see what it published, make it fail on purpose. */
export function createSandboxService(deps: SandboxServiceDeps) {
  /** one OAuth consent at a time per simulator (the authorisation page approves as one account) */
  const consents = new Map<string, Promise<unknown>>();

  function platforms(): SandboxPlatforms {
    if (!deps.platforms) throw new AppError('PLATFORM_NOT_AVAILABLE', 'The sandbox is turned off on this server (SANDBOX=off)');
    return deps.platforms;
  }

  function identifierOf(identifier: string): PlatformIdentifier {
    const p = platforms();
    if (!(PLATFORM_IDENTIFIERS as readonly string[]).includes(identifier)) throw fieldError('identifier', `Unknown platform "${identifier}"`);
    if (!p.available(identifier)) throw new AppError('PLATFORM_NOT_AVAILABLE', `There is no sandbox of ${identifier} yet`);
    return identifier;
  }

  function accountOf(key: string, identifier: PlatformIdentifier, name?: string): SandboxAccount {
    const short = key.slice(0, 4);
    return { key, name: name ?? `Sandbox ${deps.adapters[identifier].metadata.displayName} ${short}`, handle: `sandbox${key.slice(0, 8)}` };
  }

  /** Follows the simulator's authorisation page (approving as the account) to the redirect back to us, and finishes there. */
  async function consent(organizationId: string, identifier: PlatformIdentifier, url: string, restoring: boolean): Promise<Record<string, string>> {
    const p = platforms();
    const { sim, kit } = await (restoring ? p.started(organizationId, identifier) : p.instance(organizationId, identifier));
    if (!sim.app) throw new AppError('PLATFORM_NOT_AVAILABLE', `The sandbox ${identifier} has no authorisation page`);
    const app = sim.app;
    let at = new URL(url);
    for (let hop = 0; hop < 8; hop++) {
      if (!kit.origins.includes(at.origin)) break;
      const res = await app.inject({ method: 'GET', url: at.pathname + at.search, headers: { host: at.host } });
      const location = res.headers.location;
      if (res.statusCode < 300 || res.statusCode >= 400 || typeof location !== 'string') {
        throw new AppError('PLATFORM_UNREACHABLE', `The sandbox ${identifier} authorisation page answered ${res.statusCode} instead of a redirect: ${res.body.slice(0, 200)}`);
      }
      at = new URL(location, at);
    }
    return Object.fromEntries(at.searchParams);
  }

  async function connectAccount(
    organizationId: string,
    identifier: PlatformIdentifier,
    account: SandboxAccount,
    opts: { refresh?: string; by?: ConnectingPerson; restoring?: boolean } = {},
  ): Promise<Integration> {
    const p = platforms();
    // the simulator with the organisation's channels taken back; not while taking them back
    // (`restore` runs inside `instance`, which would then wait on itself for ever)
    if (!opts.restoring) await p.instance(organizationId, identifier);
    const connection = await p.addAccount(organizationId, identifier, account);
    const service = deps.connectService(organizationId, identifier, account.key);
    if (connection.kind === 'credentials') {
      return service.connectWithCredentials(organizationId, identifier, connection.body, { ...(opts.refresh ? { refresh: opts.refresh } : {}) }, opts.by);
    }
    const lock = `${organizationId}:${identifier}`;
    const before = consents.get(lock) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(async () => {
      await connection.approve();
      const begun = await service.beginConnect(organizationId, identifier, { ...(opts.refresh ? { refresh: opts.refresh } : {}), ...(connection.instanceUrl ? { instanceUrl: connection.instanceUrl } : {}) });
      if (!begun.url) throw new AppError('PLATFORM_NOT_AVAILABLE', `${identifier} gave no authorisation page`);
      const back = await consent(organizationId, identifier, begun.url, !!opts.restoring);
      return (await service.completeConnect(identifier, back)).integration;
    });
    consents.set(lock, run);
    try {
      return await run;
    } finally {
      if (consents.get(lock) === run) consents.delete(lock);
    }
  }

  async function sandboxChannel(organizationId: string, id: string) {
    const row = await deps.repository.channel(organizationId, id);
    if (!row || !row.sandbox) throw notFound('Sandbox channel');
    return row;
  }

  return {
    enabled: () => deps.platforms !== undefined,

    /** What a sandbox key may reach (`http/sandbox-scope.ts`): sandbox channels and the posts on them only. */
    scope: {
      channel: (organizationId: string, id: string) => deps.repository.channelSandbox(organizationId, id),
      post: (organizationId: string, postId: string) => deps.repository.postsSandbox(organizationId, { postId }),
      group: (organizationId: string, group: string) => deps.repository.postsSandbox(organizationId, { group }),
      channelIds: (organizationId: string) => deps.repository.sandboxChannelIds(organizationId),
    },

    /** Connects a new sandbox channel of `identifier` (or, with `refresh`, reconnects that sandbox channel's account). */
    async connect(organizationId: string, identifier: string, input: { name?: string; refresh?: string } = {}, by?: ConnectingPerson): Promise<Integration> {
      const id = identifierOf(identifier);
      if (input.refresh) {
        const row = await deps.repository.channel(organizationId, input.refresh);
        if (!row || row.identifier !== id) throw notFound('Integration');
        if (!row.sandbox || !row.sandboxKey) throw new AppError('CONFLICT', 'This channel is a live channel: it cannot be reconnected as a sandbox channel');
        return connectAccount(organizationId, id, accountOf(row.sandboxKey, id, row.name), { refresh: row.id, by });
      }
      const key = randomBytes(8).toString('hex');
      return connectAccount(organizationId, id, accountOf(key, id, input.name), { by });
    },

    /**
     * A restarted simulator knows none of the organisation's accounts: each sandbox channel of the
     * platform is taken back (same account ids from its key, new credentials stored on the channel).
     */
    async restore(organizationId: string, identifier: PlatformIdentifier): Promise<void> {
      for (const row of await deps.repository.channelsOf(organizationId, identifier)) {
        if (!row.sandboxKey) continue;
        try {
          await connectAccount(organizationId, identifier, accountOf(row.sandboxKey, identifier, row.name), { refresh: row.id, restoring: true });
        } catch (err) {
          deps.logger.warn({ err, integrationId: row.id }, 'a sandbox channel could not be taken back by its restarted simulator');
        }
      }
    },

    /** What the channel published, as its platform holds it, each item matched to its post where it is one. */
    async feed(organizationId: string, id: string) {
      const row = await sandboxChannel(organizationId, id);
      const items: SandboxFeedItem[] = await platforms().feed(organizationId, row.identifier as PlatformIdentifier, row.internalId);
      const published = await deps.repository.publishedPosts(row.id);
      const byRelease = new Map(published.map((p) => [p.releaseId!, p]));
      return {
        integration: { id: row.id, identifier: row.identifier, name: row.name, profile: row.profile, picture: row.picture },
        items: items.map((item) => {
          const post = byRelease.get(item.id);
          return { ...item, ...(post ? { post: { id: post.id, group: post.group, releaseURL: post.releaseUrl, media: post.image.map((m) => ({ id: m.id, path: m.path })) } } : {}) };
        }),
      };
    },

    /** Makes the channel fail as its platform does: once (revoked, rate limited, refusals) or for `minutes` (down, slow). */
    async fault(organizationId: string, id: string, input: { kind: SandboxFaultKind; minutes?: number; delaySeconds?: number }) {
      const row = await sandboxChannel(organizationId, id);
      const identifier = row.identifier as PlatformIdentifier;
      const p = platforms();
      if (input.kind === 'down' || input.kind === 'slow') {
        const minutes = input.minutes ?? 5;
        p.setOutage(organizationId, identifier, input.kind === 'down' ? { down: minutes } : { slow: minutes, slowMs: (input.delaySeconds ?? 5) * 1000 });
      } else {
        await p.fault(organizationId, identifier, input.kind);
      }
      return this.faults(organizationId, id, row.identifier);
    },

    /** Ends the outages ("down", "slow") of the channel's platform. */
    async clearFaults(organizationId: string, id: string) {
      const row = await sandboxChannel(organizationId, id);
      platforms().setOutage(organizationId, row.identifier as PlatformIdentifier, { down: 0, slow: 0 });
      return this.faults(organizationId, id, row.identifier);
    },

    async faults(organizationId: string, id: string, knownIdentifier?: string) {
      const identifier = (knownIdentifier ?? (await sandboxChannel(organizationId, id)).identifier) as PlatformIdentifier;
      const c = platforms().controls(organizationId, identifier);
      return {
        downUntil: c.downUntil !== undefined ? new Date(c.downUntil).toISOString() : null,
        slowUntil: c.slowUntil !== undefined ? new Date(c.slowUntil).toISOString() : null,
        slowSeconds: c.slowMs !== undefined ? c.slowMs / 1000 : null,
      };
    },
  };
}

export type SandboxService = ReturnType<typeof createSandboxService>;
