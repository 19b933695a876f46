import { PUBLIC_URL, type PlatformApi } from '../../../test/platform-api-kit.js';
import type { PublishItem } from '../platform.js';
import { startMediaHost } from './media-host.testkit.js';
import { noMedia, withServer, withSimulator, type Closable, type OriginMap, type TestCtx } from './platform.testkit.js';

/**
 * The test kit of platforms that pull a post's pictures from its public URL (DEV, Hashnode, Medium): the
 * simulator fetches them from a media host the test runs (unit tests), or from the app itself
 * (api tests, where the app listens on loopback and PUBLIC_URL is mapped to it).
 */

/** The public origin media paths use in these tests. */
export const MEDIA_ORIGIN = 'https://tidings.example';

/** A 1×1 PNG media item (24 bytes) at `${MEDIA_ORIGIN}/media/2026/01/<id>.png`. */
export function image(id: string): PublishItem['media'][number] {
  return { id, path: `${MEDIA_ORIGIN}/media/2026/01/${id}.png`, type: 'image', mimeType: 'image/png', size: 24, width: 1, height: 1 };
}

/** The contract's PNG (test/platform-contract.ts), served where the contract's media item says it lives. */
export const CONTRACT_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
  'hex',
);

/** The contract's setup pieces: a simulator that pulls the contract's media item (`https://media.example/1.png`) from a host it really fetches from. */
export async function contractWithMediaHost<S extends Closable>(start: (mediaOrigins: Record<string, string>) => Promise<S>) {
  const host = await startMediaHost(new Map([['/1.png', CONTRACT_PNG]]));
  const sim = await start({ 'https://media.example': host.origin });
  return {
    sim,
    close: async () => {
      await sim.close();
      await host.close();
    },
  };
}

/** Runs `fn` against a fresh media host serving `files` under MEDIA_ORIGIN and a simulator pulling from it, with an HTTP client mapped to the simulator. */
export function withPullingSimulator<S extends Closable, T>(
  opts: { files?: Map<string, Buffer>; start: (mediaOrigins: Record<string, string>) => Promise<S>; origins: (sim: S) => OriginMap; platform: string },
  fn: (sim: S, ctx: TestCtx, host: { hits: string[] }) => Promise<T>,
): Promise<T> {
  return withServer(
    () => startMediaHost(opts.files ?? new Map<string, Buffer>()),
    (host) =>
      withSimulator(
        { start: () => opts.start({ [MEDIA_ORIGIN]: host.origin }), origins: opts.origins, openMedia: noMedia(`${opts.platform} pulls media by URL`) },
        (sim, ctx) => fn(sim, ctx, host),
      ),
  );
}

/**
 * Starts the api test's app against a simulator that pulls media from the app's own public
 * `/media/…` URLs: the app really listens, and the simulator maps PUBLIC_URL to it.
 */
export async function startPullingApp<S extends { origin: string }>(api: PlatformApi, start: (mediaOrigins: Record<string, string>) => Promise<S>, platformOriginsFor: (sim: S) => string): Promise<S> {
  const mediaOrigins: Record<string, string> = {};
  const sim = await start(mediaOrigins);
  await api.start({ env: { PUBLIC_URL, PLATFORM_ORIGINS: platformOriginsFor(sim) } });
  mediaOrigins[PUBLIC_URL] = await api.listen();
  return sim;
}
