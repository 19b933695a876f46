import { expect } from 'vitest';
import { connectViaOAuth, runPlatformContract, type ContractSubject, type PublishedRecord } from '../../../test/platform-contract.js';
import type { InjectedKind } from '../../../test/simulators/harness.js';
import { PlatformError, type ConnectedAccount, type PlatformAdapter, type PublishItem } from '../platform.js';
import { startMediaHost } from './media-host.testkit.js';
import { CONTRACT_PNG } from './media-pull.testkit.js';
import type { Closable, OriginMap, TestCtx } from './platform.testkit.js';

/**
 * What the platforms' unit tests (`<id>.unit.test.ts`) each wrote for themselves: the failure
 * they await, the OAuth connect against their simulator, and the shared contract's setup.
 */

/** Awaits an operation that must fail, checks it failed with a `PlatformError`, and returns that error. */
export async function platformFailure(p: Promise<unknown>): Promise<PlatformError> {
  const e = await p.catch((err: unknown) => err);
  expect(e).toBeInstanceOf(PlatformError);
  return e as PlatformError;
}

/**
 * `connect(sim, ctx, a?)`: an account connected through the OAuth round trip (`connectViaOAuth`)
 * against the simulator, with `adapter` or another one (a wrong secret, a missing app).
 */
export const oauthConnector =
  <S>(adapter: PlatformAdapter, rewriteFor: (sim: S) => (url: string) => string, opts: { instanceUrl?: string; redirectUri?: string } = {}) =>
  (sim: S, ctx: TestCtx, a: PlatformAdapter = adapter): Promise<ConnectedAccount> =>
    connectViaOAuth(a, ctx, rewriteFor(sim), opts);

/** What the contract needs of a simulator; `lookup` and `expireAccessTokens` where it has them. */
export interface ContractSimulator extends Closable {
  injectKind(kind: InjectedKind): void;
  lookup?(id: string): PublishedRecord | undefined;
  expireAccessTokens?(): void;
}

export interface SimulatorContract<S extends ContractSimulator, H extends Closable> extends Omit<ContractSubject, 'setup'> {
  /** a server started before the simulator (a media host it fetches from), closed after it */
  host?: () => Promise<H>;
  /** starts the simulator (given the host, when there is one); the simulator's type is read from here (hence `NoInfer` below) */
  start: (host: H) => Promise<S>;
  /** the real origins the simulator stands for (`originsFor` of the platform's test kit) */
  origins: (sim: NoInfer<S>) => OriginMap;
  /** connects an account the way a user would: a connect function, or what the user types into the credentials form */
  connect: ((sim: NoInfer<S>, ctx: TestCtx) => Promise<ConnectedAccount>) | Record<string, unknown>;
  /** the published record as the contract compares it (default: the simulator's own `lookup`) */
  lookup?: (sim: NoInfer<S>) => (id: string) => PublishedRecord | undefined;
}

/**
 * Runs the shared contract (test/platform-contract.ts) against a platform's simulator: the
 * setup every unit test wrote the same way — failures injected into the simulator, its
 * published records looked up, its access tokens expired (where the adapter refreshes), and the
 * simulator closed before the host beside it.
 */
export function runSimulatorContract<S extends ContractSimulator, H extends Closable = Closable>({ host, start, origins, connect, lookup, ...subject }: SimulatorContract<S, H>) {
  runPlatformContract({
    ...subject,
    async setup() {
      const beside = host ? await host() : undefined;
      const sim = await start(beside as H);
      return {
        origins: origins(sim),
        injectKind: (k) => sim.injectKind(k),
        connect: (ctx) => (typeof connect === 'function' ? connect(sim, ctx) : subject.adapter.connectWithCredentials!(connect, ctx)),
        lookup: lookup ? lookup(sim) : (id) => sim.lookup!(id),
        expireToken: () => sim.expireAccessTokens!(),
        close: async () => {
          await sim.close();
          await beside?.close();
        },
      };
    },
  });
}

/** A media host serving the contract's PNG where the contract's media item says it lives (`https://media.example/1.png`). */
export const contractMediaHost = () => startMediaHost(new Map([['/1.png', CONTRACT_PNG]]));
/**
 * The host `contractMediaHost` starts. Write it on `start`'s parameter (`start: (host: ContractMediaHost) => …`):
 * a typed parameter lets TypeScript read the simulator's type from `start` before it checks `origins`.
 */
export type ContractMediaHost = Awaited<ReturnType<typeof contractMediaHost>>;

/** The `mediaOrigins` of a simulator that pulls the contract's media from `host`. */
export const contractMediaOrigins = (host: { origin: string }): Record<string, string> => ({ 'https://media.example': host.origin });

/** Starts a public media host (`start`) and puts the contract's PNG at `1.png` on it, where the contract's media item says it lives. */
export async function hostingContractPng<H extends { put(name: string, data: Buffer, type: string): unknown }>(start: () => Promise<H>): Promise<H> {
  const host = await start();
  host.put('1.png', CONTRACT_PNG, 'image/png');
  return host;
}

/** A stored file (what `openMedia` answers) that fails any attempt to read it whole; its slices are guarded the same way. */
export class StreamOnlyBlob extends Blob {
  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.reject(new Error('the stored file was read whole'));
  }
  override text(): Promise<string> {
    return Promise.reject(new Error('the stored file was read whole'));
  }
  override slice(start?: number, end?: number, type?: string): Blob {
    return new StreamOnlyBlob([super.slice(start, end)], { type: type ?? this.type });
  }
}

/** A 1×1 PNG media item of `size` bytes at its public path, `https://tidings.example/media/2026/01/<id>.png`. */
export const publicPng = (id: string, size: number, alt: string | null = null): PublishItem['media'][number] => ({
  id,
  path: `https://tidings.example/media/2026/01/${id}.png`,
  type: 'image',
  mimeType: 'image/png',
  size,
  width: 1,
  height: 1,
  alt,
});
