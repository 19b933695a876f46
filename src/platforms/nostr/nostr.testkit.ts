import { createHash } from 'node:crypto';
import { testContext } from '../../../test/platform-contract.js';
import { createPlatformHttp } from '../http.js';
import type { OperationContext, PublishMedia } from '../platform.js';
import { startNostrRelay, type NostrRelayOptions, type NostrRelaySimulator } from './nostr.simulator.js';

/** Shared fixtures of the Nostr tests: several relays behind real-looking wss:// names, a media host. */

/** A fixed secret key (hex) and the same key as nsec, with its public key. */
export const SECRET_HEX = '7f3b8a2c91d04e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b';

export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The relay URL a user would type for relay `name`. */
export const relayUrl = (name: string) => `wss://${name}.relay.example`;

export interface Relays {
  /** by name */
  sims: Map<string, NostrRelaySimulator>;
  urls: string[];
  /** wss://name.relay.example → ws://127.0.0.1:port */
  origins: Map<string, string>;
  /** PLATFORM_ORIGINS value */
  env: string;
  get(name: string): NostrRelaySimulator;
  close(): Promise<void>;
}

export async function startRelays(names: string[], opts: NostrRelayOptions = {}): Promise<Relays> {
  const sims = new Map<string, NostrRelaySimulator>();
  for (const name of names) sims.set(name, await startNostrRelay({ name, ...opts }));
  const origins = new Map(names.map((n) => [relayUrl(n), sims.get(n)!.url]));
  return {
    sims,
    urls: names.map(relayUrl),
    origins,
    env: [...origins].map(([from, to]) => `${from}=${to}`).join(','),
    get: (n) => sims.get(n)!,
    close: async () => {
      await Promise.all([...sims.values()].map((s) => s.close()));
    },
  };
}

/** A tiny web server standing for the service's public media URLs (what Nostr clients load). */
export { startMediaHost } from '../common/media-host.testkit.js';

export const MEDIA_ORIGIN = 'https://tidings.example';

export function image(id: string, size = 24): PublishMedia {
  return { id, path: `${MEDIA_ORIGIN}/media/${id}.png`, type: 'image', mimeType: 'image/png', size, width: 640, height: 480 };
}

export type TestCtx = Omit<OperationContext, 'credentials'>;

/** An operation context whose HTTP client maps `origins` (no private targets otherwise). */
export function contextFor(origins: Map<string, string>): { ctx: TestCtx; close(): Promise<void> } {
  const http = createPlatformHttp({ origins, allowPrivateTargets: false, timeoutMs: 5000 });
  return { ctx: { ...testContext(http), openMedia: () => Promise.reject(new Error('Nostr links media by URL')) }, close: () => http.close() };
}
