import { testContext } from '../../../test/platform-contract.js';
import { startMediaHost } from '../common/media-host.testkit.js';
import { createPlatformHttp } from '../http.js';
import type { OperationContext, PublishItem } from '../platform.js';
import { DEVTO_ORIGIN, startDevtoSimulator, type DevtoSimulator, type DevtoSimulatorOptions } from './devto.simulator.js';

/** Shared fixtures of the DEV tests: a user with an organization, a media host, a simulator wired to an HTTP client. */

export const DEV_KEY = 'aB3dE5fG7hJ9kL1mN3pQ5rS7';
export const DEV_USER = { id: 412_345, username: 'acmedev', name: 'Acme Dev', apiKey: DEV_KEY, profile_image: 'https://media2.dev.to/acmedev.png' };
export const DEV_ORG = { id: 7001, username: 'acmecorp', name: 'Acme Corp', members: [DEV_USER.id] };
export const OTHER_ORG = { id: 7002, username: 'notyours', name: 'Not Yours', members: [] };

export async function devtoSimulator(opts: DevtoSimulatorOptions = {}) {
  const sim = await startDevtoSimulator(opts);
  sim.addUser(DEV_USER);
  sim.addOrg(DEV_ORG);
  sim.addOrg(OTHER_ORG);
  return sim;
}

export const originsFor = (sim: { origin: string }) => new Map([[DEVTO_ORIGIN, sim.origin]]);
export const platformOriginsFor = (sim: { origin: string }) => `${DEVTO_ORIGIN}=${sim.origin}`;

export { PNG, sha, startMediaHost } from '../common/media-host.testkit.js';

/** The public origin media paths use in these tests. */
export const MEDIA_ORIGIN = 'https://tidings.example';

export function image(id: string): PublishItem['media'][number] {
  return { id, path: `${MEDIA_ORIGIN}/media/2026/01/${id}.png`, type: 'image', mimeType: 'image/png', size: 24, width: 1, height: 1 };
}

export type TestCtx = Omit<OperationContext, 'credentials'>;

/** Runs `fn` against a fresh simulator and media host, with an HTTP client mapped to them. */
export async function withDevto<T>(
  opts: DevtoSimulatorOptions & { files?: Map<string, Buffer> },
  fn: (sim: DevtoSimulator, ctx: TestCtx, host: { hits: string[] }) => Promise<T>,
): Promise<T> {
  const host = await startMediaHost(opts.files ?? new Map<string, Buffer>());
  const sim = await devtoSimulator({ mediaOrigins: { [MEDIA_ORIGIN]: host.origin }, ...opts });
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
  try {
    return await fn(sim, { ...testContext(http), openMedia: () => Promise.reject(new Error('DEV pulls media by URL')) }, host);
  } finally {
    await http.close();
    await sim.close();
    await host.close();
  }
}
