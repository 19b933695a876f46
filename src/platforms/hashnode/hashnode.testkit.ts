import { withPullingSimulator } from '../common/media-pull.testkit.js';
import { simulatorOrigins } from '../common/platform.testkit.js';
import { HASHNODE_GQL_ORIGIN, startHashnodeSimulator, type HashnodeSimulator, type HashnodeSimulatorOptions } from './hashnode.simulator.js';

/** Shared fixtures of the Hashnode tests: a user with two publications, tags, a media host, a simulator wired to an HTTP client. */

export { PNG, sha } from '../common/media-host.testkit.js';
export { CONTRACT_PNG, contractWithMediaHost, image, MEDIA_ORIGIN, startPullingApp } from '../common/media-pull.testkit.js';
export { published, withCreds, type TestCtx } from '../common/platform.testkit.js';

export const HN_TOKEN = '5f1c0e4a-3b7d-4c2e-9a1f-8d6b2e0c7a93';
export const HN_USER = { id: '60a1b2c3d4e5f60718293a4b', username: 'acmewrites', name: 'Acme Writes', token: HN_TOKEN, profilePicture: 'https://cdn.hashnode.com/acme.png' };
export const BLOG = { id: '64f0c0ffee0000000000b10c', title: 'Acme Engineering', url: 'https://acme.hashnode.dev', members: [HN_USER.id] };
export const NEWS = { id: '64f0c0ffee0000000000eeee', title: 'Acme News', url: 'https://news.acme.dev', members: [HN_USER.id] };
export const OTHERS = { id: '64f0c0ffee0000000000dead', title: 'Not yours', url: 'https://other.hashnode.dev', members: ['60a1b2c3d4e5f60718290000'] };
export const JS_TAG = { id: '56744721958ef13879b94cad', name: 'JavaScript', slug: 'javascript' };
export const PG_TAG = { id: '56744723958ef13879b9550e', name: 'PostgreSQL', slug: 'postgresql' };
export const NODE_TAG = { id: '56744722958ef13879b950a8', name: 'Node.js', slug: 'nodejs' };

export async function hashnodeSimulator(opts: HashnodeSimulatorOptions = {}) {
  const sim = await startHashnodeSimulator(opts);
  sim.addUser(HN_USER);
  sim.addUser({ id: OTHERS.members[0]!, username: 'someoneelse', name: 'Someone Else', token: 'other-token-0000' });
  for (const p of [BLOG, NEWS, OTHERS]) sim.addPublication({ ...p });
  for (const t of [JS_TAG, PG_TAG, NODE_TAG]) sim.addTag(t);
  return sim;
}

export const { originsFor, platformOriginsFor } = simulatorOrigins([HASHNODE_GQL_ORIGIN]);

/** Runs `fn` against a fresh simulator and media host, with an HTTP client mapped to them. */
export const withHashnode = <T>(opts: HashnodeSimulatorOptions & { files?: Map<string, Buffer> }, fn: Parameters<typeof withPullingSimulator<HashnodeSimulator, T>>[1]): Promise<T> =>
  withPullingSimulator({ files: opts.files, start: (mediaOrigins) => hashnodeSimulator({ mediaOrigins, ...opts }), origins: originsFor, platform: 'Hashnode' }, fn);
