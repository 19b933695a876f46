import { withPullingSimulator } from '../common/media-pull.testkit.js';
import { simulatorOrigins } from '../common/platform.testkit.js';
import { MEDIUM_API_ORIGIN, startMediumSimulator, type MediumSimulator, type MediumSimulatorOptions } from './medium.simulator.js';

/** Shared fixtures of the Medium tests: a writer with a token, two publications, a media host. */

export const MEDIUM_TOKEN = '181d415f34379af07b2c11d144dfbe35d';
export const WRITER = { id: '5303d74c64f66366f00cb9b2a94f3251bf5', username: 'acmewrites', name: 'Acme Writes', imageUrl: 'https://cdn-images-1.medium.com/fit/c/400/400/0*acme.png' };
/** a publication the writer edits */
export const DEVELOPERS = 'b45573563f5a';
/** a publication where the writer may only submit drafts */
export const ABOUT = 'b969ac62a46b';

export async function mediumSimulator(opts: MediumSimulatorOptions = {}) {
  const sim = await startMediumSimulator(opts);
  sim.addUser(WRITER, MEDIUM_TOKEN);
  sim.addUser({ id: '1c9c63b15b874d3e354340b7d7458d55e1d', username: 'someoneelse', name: 'Someone Else' }, 'ffffffffffffffffffffffffffffffff0');
  sim.addPublication({ id: DEVELOPERS, name: 'Developers', slug: 'developers', contributors: { [WRITER.id]: 'editor' } });
  sim.addPublication({ id: ABOUT, name: 'About Medium', slug: 'about', contributors: { [WRITER.id]: 'writer' } });
  sim.addPublication({ id: 'c0ffee000001', name: 'Not yours', slug: 'not-yours', contributors: {} });
  return sim;
}

export const { originsFor, platformOriginsFor } = simulatorOrigins([MEDIUM_API_ORIGIN]);

export { startMediaHost } from '../common/media-host.testkit.js';
export { startPullingApp } from '../common/media-pull.testkit.js';
export type { TestCtx } from '../common/platform.testkit.js';

/** Runs `fn` against a fresh simulator whose pictures are fetched from `files` under `https://tidings.example`. */
export const withMedium = <T>(files: Map<string, Buffer>, fn: Parameters<typeof withPullingSimulator<MediumSimulator, T>>[1]): Promise<T> =>
  withPullingSimulator({ files, start: (mediaOrigins) => mediumSimulator({ mediaOrigins }), origins: originsFor, platform: 'Medium' }, fn);
