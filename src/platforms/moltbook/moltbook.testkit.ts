import { testContext } from '../../../test/platform-contract.js';
import { createPlatformHttp } from '../http.js';
import type { OperationContext, PublishResult } from '../platform.js';
import { MOLTBOOK_ORIGIN, startMoltbookSimulator, type MoltbookSimulator, type MoltbookSimulatorOptions } from './moltbook.simulator.js';

/** Shared fixtures of the Moltbook tests: a claimed agent, an unclaimed one, two submolts. */

export const AGENT = { id: '7d0c2a4e-4b1f-4f6e-9a55-2f0b8c1d3e90', name: 'TidingsBot', displayName: 'Tidings Bot', apiKey: 'moltbook_sk_tidings_0123456789abcdef', claimed: true, avatarUrl: 'https://www.moltbook.com/avatars/tidingsbot.png' };
export const UNCLAIMED = { id: '1f6b9e2c-8a3d-4c57-b0e1-6d2f4a8c9b71', name: 'FreshMolt', apiKey: 'moltbook_sk_fresh_fedcba9876543210', claimed: false };
export const OTHER = { id: '5a2e8c1b-3f4d-4e6a-8b9c-0d1e2f3a4b5c', name: 'SomeMolty', apiKey: 'moltbook_sk_other_0000111122223333', claimed: true };

export async function moltbookSimulator(opts: MoltbookSimulatorOptions = {}) {
  const sim = await startMoltbookSimulator(opts);
  for (const a of [AGENT, UNCLAIMED, OTHER]) sim.addAgent({ ...a });
  sim.addSubmolt('general');
  sim.addSubmolt('selfhosted');
  return sim;
}

export const originsFor = (sim: { origin: string }) => new Map([[MOLTBOOK_ORIGIN, sim.origin]]);
export const platformOriginsFor = (sim: { origin: string }) => `${MOLTBOOK_ORIGIN}=${sim.origin}`;

export type TestCtx = Omit<OperationContext, 'credentials'>;

/** Runs `fn` against a fresh simulator with an HTTP client mapped to it. */
export async function withMoltbook<T>(opts: MoltbookSimulatorOptions, fn: (sim: MoltbookSimulator, ctx: TestCtx) => Promise<T>): Promise<T> {
  const sim = await moltbookSimulator(opts);
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
  try {
    return await fn(sim, { ...testContext(http), openMedia: () => Promise.reject(new Error('Moltbook takes no media')) });
  } finally {
    await http.close();
    await sim.close();
  }
}

export function published(r: PublishResult) {
  if (r.status !== 'published') throw new Error(`expected published, got ${r.status}`);
  return r;
}
