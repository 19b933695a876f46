import type { Clock } from '../../lib/clock.js';
import type { PlatformHttpClient } from '../http.js';
import { PLATFORM_IDENTIFIERS, type PlatformIdentifier, type PlatformResponse } from '../platform.js';
import { withSimulatorMode, type InjectedKind } from '../simulator.js';
import { SANDBOX_APPS, SANDBOX_DISCORD_BOT_TOKEN } from './apps.js';
import { createSandboxHttp } from './http.js';
import type { InjectableSimulator, SandboxAccount, SandboxSimulator, SandboxConnection, SandboxFault, SandboxFeedItem, SandboxKit } from './kit.js';
import { SANDBOX_KITS } from './kits.js';

/**
 * The sandbox's platforms: for each organisation and platform, that platform's simulator running
 * in-process (started on first use, one per organisation so one's accounts, posts and failures
 * never meet another's), the client that reaches it and nothing else, and its controls.
 */
export interface SandboxControls {
  /** failing "down" until this time (ms), every request answered 503 */
  downUntil?: number;
  /** every request waits `slowMs` until this time (ms) */
  slowUntil?: number;
  slowMs?: number;
}

export interface SandboxInstance {
  kit: SandboxKit<SandboxSimulator>;
  sim: SandboxSimulator;
}

export interface SandboxPlatformsOptions {
  clock: Clock;
  /**
   * Runs once when an organisation's simulator of a platform has started, before it is used for a
   * channel (the service takes back that organisation's existing sandbox channels of the platform).
   * Requests it makes through `http()` reach the new simulator.
   */
  onStart?(organizationId: string, identifier: PlatformIdentifier): Promise<void>;
  /** every request a sandbox client sends (tests) */
  onRequest?(origin: string): void;
  /** the service's public origin → its loopback address, for simulators that download media by URL */
  mediaOrigins: Record<string, string>;
}

/** The app variables every sandbox adapter has (all set: the sandbox's own apps). */
export const SANDBOX_SET_VARIABLES: ReadonlySet<string> = new Set(['DISCORD_BOT_TOKEN']);

export const SANDBOX_ADAPTER_CONFIG = {
  apps: Object.fromEntries(Object.entries(SANDBOX_APPS).map(([id, app]) => [id, { clientId: app.clientId, clientSecret: app.clientSecret }])),
  discordBotToken: SANDBOX_DISCORD_BOT_TOKEN,
};

const DEFAULT_FAULT_KIND: Record<SandboxFault, InjectedKind> = {
  revoked: 'revoked',
  rate_limited: 'rate_limited',
  media_refused: 'rejected',
  duplicate: 'rejected',
};

export function sandboxAvailable(identifier: string): identifier is PlatformIdentifier {
  return (PLATFORM_IDENTIFIERS as readonly string[]).includes(identifier) && SANDBOX_KITS[identifier as PlatformIdentifier] !== undefined;
}

export function createSandboxPlatforms(opts: SandboxPlatformsOptions) {
  /** started simulators (routing waits on these), and started-and-restored (channels wait on these) */
  const started = new Map<string, Promise<SandboxInstance>>();
  /** the started ones, for what must answer at once (a socket's target) */
  const running = new Map<string, SandboxInstance>();
  const ready = new Map<string, Promise<SandboxInstance>>();
  const controls = new Map<string, SandboxControls>();
  const keyOf = (organizationId: string, identifier: PlatformIdentifier) => `${organizationId}:${identifier}`;

  function start(organizationId: string, identifier: PlatformIdentifier): Promise<SandboxInstance> {
    const key = keyOf(organizationId, identifier);
    let s = started.get(key);
    if (!s) {
      const load = SANDBOX_KITS[identifier];
      if (!load) return Promise.reject(new Error(`no sandbox kit for ${identifier}`));
      s = (async () => {
        const kit = (await load()) as SandboxKit<SandboxSimulator>;
        const sim = await withSimulatorMode('in-process', () => kit.start({ mediaOrigins: opts.mediaOrigins }));
        running.set(key, { kit, sim });
        return { kit, sim };
      })();
      s.catch(() => started.delete(key));
      started.set(key, s);
    }
    return s;
  }

  /** The organisation's simulator of the platform, started and its channels taken back. */
  function instance(organizationId: string, identifier: PlatformIdentifier): Promise<SandboxInstance> {
    const key = keyOf(organizationId, identifier);
    let r = ready.get(key);
    if (!r) {
      r = start(organizationId, identifier).then(async (i) => {
        await opts.onStart?.(organizationId, identifier);
        return i;
      });
      r.catch(() => ready.delete(key));
      ready.set(key, r);
    }
    return r;
  }

  function controlsOf(organizationId: string, identifier: PlatformIdentifier): SandboxControls {
    const key = keyOf(organizationId, identifier);
    let c = controls.get(key);
    if (!c) controls.set(key, (c = {}));
    return c;
  }

  const unavailable = (): PlatformResponse => ({
    status: 503,
    headers: { 'content-type': 'text/plain' },
    body: '503 Service Temporarily Unavailable',
  });

  return {
    available: sandboxAvailable,

    /** The client of the organisation's sandbox channels on `identifier`: its simulator, in-process, and nothing else. */
    http(organizationId: string, identifier: PlatformIdentifier): PlatformHttpClient {
      const c = controlsOf(organizationId, identifier);
      return createSandboxHttp({
        async route(origin) {
          const i = await start(organizationId, identifier);
          if (!i.kit.origins.includes(origin) || !i.sim.app) return undefined;
          return {
            app: i.sim.app,
            latencyMs: () => (c.slowUntil !== undefined && c.slowUntil > opts.clock.now() ? (c.slowMs ?? 0) : 0),
            override: () => (c.downUntil !== undefined && c.downUntil > opts.clock.now() ? unavailable() : undefined),
          };
        },
        onRequest: (origin) => opts.onRequest?.(origin),
        socketTarget(url) {
          const i = running.get(keyOf(organizationId, identifier));
          if (!i?.kit.socketTarget || !i.kit.origins.includes(new URL(url).origin)) return undefined;
          const target = i.kit.socketTarget(i.sim, url);
          if (target) opts.onRequest?.(new URL(url).origin);
          return target;
        },
      });
    },

    instance,

    /** The organisation's simulator of the platform once started, without waiting for its channels to be taken back (what taking them back uses). */
    started: start,

    /** Makes the account in the organisation's simulator and says how to connect it. */
    async addAccount(organizationId: string, identifier: PlatformIdentifier, account: SandboxAccount): Promise<SandboxConnection> {
      const { kit, sim } = await start(organizationId, identifier);
      return kit.addAccount(sim, account);
    },

    async feed(organizationId: string, identifier: PlatformIdentifier, internalId: string): Promise<SandboxFeedItem[]> {
      const { kit, sim } = await instance(organizationId, identifier);
      return kit.feed(sim, internalId);
    },

    /** Queues a failure for the next request that meets it (revoked, rate limited, refusals). */
    async fault(organizationId: string, identifier: PlatformIdentifier, fault: SandboxFault): Promise<void> {
      const { kit, sim } = await instance(organizationId, identifier);
      if (kit.fault) return kit.fault(sim, fault);
      (sim as unknown as InjectableSimulator).injectKind(DEFAULT_FAULT_KIND[fault]);
    },

    /** The platform is down (503) for `minutes`, or slow (every request waits `slowMs`) for `minutes`; 0 ends it. */
    setOutage(organizationId: string, identifier: PlatformIdentifier, outage: { down?: number; slow?: number; slowMs?: number }): SandboxControls {
      const c = controlsOf(organizationId, identifier);
      const now = opts.clock.now();
      if (outage.down !== undefined) c.downUntil = outage.down > 0 ? now + outage.down * 60_000 : undefined;
      if (outage.slow !== undefined) {
        c.slowUntil = outage.slow > 0 ? now + outage.slow * 60_000 : undefined;
        c.slowMs = outage.slowMs ?? 5000;
      }
      return { ...c };
    },

    controls(organizationId: string, identifier: PlatformIdentifier): SandboxControls {
      const c = controlsOf(organizationId, identifier);
      const now = opts.clock.now();
      return {
        ...(c.downUntil !== undefined && c.downUntil > now ? { downUntil: c.downUntil } : {}),
        ...(c.slowUntil !== undefined && c.slowUntil > now ? { slowUntil: c.slowUntil, slowMs: c.slowMs } : {}),
      };
    },

    async close() {
      const all = await Promise.allSettled([...started.values()]);
      await Promise.all(all.flatMap((r) => (r.status === 'fulfilled' ? [r.value.sim.close()] : [])));
      started.clear();
      ready.clear();
      running.clear();
    },
  };
}

export type SandboxPlatforms = ReturnType<typeof createSandboxPlatforms>;
