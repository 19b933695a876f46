import { testContext } from '../../../test/platform-contract.js';
import { createPlatformHttp } from '../http.js';
import type { ConnectedAccount, OperationContext, PlatformAdapter } from '../platform.js';
import { MEWE_ORIGIN, startMeweSimulator, type MeweSimulator, type MeweSimulatorOptions } from './mewe.simulator.js';

/**
 * Shared fixtures of the MeWe tests. The simulator encodes ASSUMED behaviour of MeWe's
 * undocumented developer API (see mewe.simulator.ts), not verified behaviour.
 */

export const MEWE_APP = { clientId: 'app-7f3e21', clientSecret: 'key-5b8c0d9e7a6f4e3d' };
export const ALICE = { userId: '5e2f1a0b9c8d7e6f5a4b3c2d', firstName: 'Alice', lastName: 'Example', handle: 'alice.example', groups: ['g-garden', 'g-books', 'g-bikes'] };
export const GARDEN = { groupId: 'g-garden', name: 'Garden Friends' };
export const BOOKS = { groupId: 'g-books', name: 'Book Club' };
export const BIKES = { groupId: 'g-bikes', name: 'Bikes' };
export const CLOSED = { groupId: 'g-closed', name: 'Not a member' };

export async function meweSimulator(opts: MeweSimulatorOptions = {}): Promise<MeweSimulator> {
  const sim = await startMeweSimulator(opts);
  sim.addApp({ appId: MEWE_APP.clientId, apiKey: MEWE_APP.clientSecret });
  sim.addUser(ALICE);
  for (const g of [GARDEN, BOOKS, BIKES, CLOSED]) sim.addGroup(g);
  return sim;
}

export const originsFor = (sim: { origin: string }) => new Map([[MEWE_ORIGIN, sim.origin]]);
export const platformOriginsFor = (sim: { origin: string }) => `${MEWE_ORIGIN}=${sim.origin}`;
export const rewriteFor = (sim: { origin: string }) => (url: string) => url.replace(MEWE_ORIGIN, sim.origin);

export type TestCtx = Omit<OperationContext, 'credentials'>;

/**
 * Connects the way a user would: the login page approves (or holds) the request and redirects
 * back with `loginRequestToken` (MeWe's name for the grant), which completes the connection.
 */
export async function connectViaLogin(adapter: PlatformAdapter, sim: { origin: string }, ctx: TestCtx, redirectUri = 'http://localhost:3000/integrations/social/mewe/callback'): Promise<ConnectedAccount> {
  const state = `state-${Math.random().toString(36).slice(2)}`;
  const { url } = await adapter.beginConnect!({ state, redirectUri }, ctx);
  const res = await fetch(rewriteFor(sim)(url), { redirect: 'manual' });
  const back = new URL(res.headers.get('location') ?? 'http://x.invalid/');
  if (back.searchParams.get('state') !== state) throw new Error(`the login page did not send the state back (${res.status})`);
  return adapter.completeConnect!({ code: back.searchParams.get('loginRequestToken') ?? '', redirectUri }, ctx);
}

export async function withMewe<T>(opts: MeweSimulatorOptions, fn: (sim: MeweSimulator, ctx: TestCtx) => Promise<T>, openMedia: OperationContext['openMedia'] = () => Promise.reject(new Error('no media here'))): Promise<T> {
  const sim = await meweSimulator(opts);
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
  try {
    return await fn(sim, { ...testContext(http), openMedia });
  } finally {
    await http.close();
    await sim.close();
  }
}
