import { simulatorOrigins } from '../common/platform.testkit.js';
import { withPullingSimulator } from '../common/media-pull.testkit.js';
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

export const { originsFor, platformOriginsFor } = simulatorOrigins([DEVTO_ORIGIN]);

export { PNG, sha } from '../common/media-host.testkit.js';
export { CONTRACT_PNG, contractWithMediaHost, image, MEDIA_ORIGIN, startPullingApp } from '../common/media-pull.testkit.js';
export { published, withCreds, type TestCtx } from '../common/platform.testkit.js';

/** Runs `fn` against a fresh simulator and media host, with an HTTP client mapped to them. */
export const withDevto = <T>(opts: DevtoSimulatorOptions & { files?: Map<string, Buffer> }, fn: Parameters<typeof withPullingSimulator<DevtoSimulator, T>>[1]): Promise<T> =>
  withPullingSimulator({ files: opts.files, start: (mediaOrigins) => devtoSimulator({ mediaOrigins, ...opts }), origins: originsFor, platform: 'DEV' }, fn);
