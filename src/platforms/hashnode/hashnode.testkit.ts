import { testContext } from '../../../test/platform-contract.js';
import { startMediaHost } from '../common/media-host.testkit.js';
import { createPlatformHttp } from '../http.js';
import type { OperationContext, PublishItem } from '../platform.js';
import { HASHNODE_GQL_ORIGIN, startHashnodeSimulator, type HashnodeSimulator, type HashnodeSimulatorOptions } from './hashnode.simulator.js';

/** Shared fixtures of the Hashnode tests: a user with two publications, tags, a media host, a simulator wired to an HTTP client. */

export { PNG, sha, startMediaHost } from '../common/media-host.testkit.js';

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

export const originsFor = (sim: { origin: string }) => new Map([[HASHNODE_GQL_ORIGIN, sim.origin]]);
export const platformOriginsFor = (sim: { origin: string }) => `${HASHNODE_GQL_ORIGIN}=${sim.origin}`;

export const MEDIA_ORIGIN = 'https://tidings.example';

export function image(id: string): PublishItem['media'][number] {
  return { id, path: `${MEDIA_ORIGIN}/media/2026/01/${id}.png`, type: 'image', mimeType: 'image/png', size: 24, width: 1, height: 1 };
}

export type TestCtx = Omit<OperationContext, 'credentials'>;

/** Runs `fn` against a fresh simulator and media host, with an HTTP client mapped to them. */
export async function withHashnode<T>(
  opts: HashnodeSimulatorOptions & { files?: Map<string, Buffer> },
  fn: (sim: HashnodeSimulator, ctx: TestCtx, host: { hits: string[] }) => Promise<T>,
): Promise<T> {
  const host = await startMediaHost(opts.files ?? new Map<string, Buffer>());
  const sim = await hashnodeSimulator({ mediaOrigins: { [MEDIA_ORIGIN]: host.origin }, ...opts });
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
  try {
    return await fn(sim, { ...testContext(http), openMedia: () => Promise.reject(new Error('Hashnode pulls media by URL')) }, host);
  } finally {
    await http.close();
    await sim.close();
    await host.close();
  }
}
