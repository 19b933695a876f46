import { testContext } from '../../../test/platform-contract.js';
import { createPlatformHttp } from '../http.js';
import type { OperationContext } from '../platform.js';
import { SKOOL_API_ORIGIN, SKOOL_UPLOAD_ORIGIN, startSkoolSimulator, type SkoolSimulator } from './skool.simulator.js';

/**
 * Shared fixtures of the Skool tests: a member with session cookies, a group with labels where they
 * may post, one where their level is too low, and one whose only label is for admins. The
 * simulator encodes ASSUMED behaviour of Skool's private API (see skool.simulator.ts).
 */

export const MEMBER = {
  id: 'a4d1c0de5e1f4b0a9c3d2e1f0a9b8c7d',
  name: 'ada-lovelace-1234',
  firstName: 'Ada',
  lastName: 'Lovelace',
  picture: 'https://assets.skool.com/f/ada/avatar.jpg',
  authToken: 'eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyX2lkIjoiYWRhIn0.c2lnbmF0dXJl',
  clientId: '0f3e2d1c0b0a09080706050403020100',
};
export const OTHER = { id: 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0', name: 'bob-9', firstName: 'Bob', lastName: 'B', authToken: 'other-token', clientId: 'other-client' };

export const BUILDERS = { id: 'f1e2d3c4b5a697887766554433221100', name: 'builders-club', displayName: 'Builders Club' };
export const WINS = { id: '11112222333344445555666677778888', displayName: 'Wins' };
export const HELP = { id: '99990000aaaabbbbccccddddeeeeffff', displayName: 'Help' };
export const ANNOUNCE = { id: 'aaaa0000bbbb1111cccc2222dddd3333', displayName: 'Announcements', adminOnly: true };
export const VIP = { id: '0123456789abcdef0123456789abcdef', name: 'vip-lounge', displayName: 'VIP Lounge' };
export const PLAIN = { id: 'fedcba9876543210fedcba9876543210', name: 'plain-group', displayName: 'Plain Group' };

export async function skoolSimulator(): Promise<SkoolSimulator> {
  const sim = await startSkoolSimulator();
  sim.addUser(MEMBER);
  sim.addUser(OTHER);
  sim.addGroup({ ...BUILDERS, labels: [WINS, HELP, ANNOUNCE], postLevel: 1, members: { [MEMBER.id]: { level: 2 }, [OTHER.id]: { level: 1 } } });
  sim.addGroup({ ...VIP, labels: [], postLevel: 3, members: { [MEMBER.id]: { level: 2 } } });
  sim.addGroup({ ...PLAIN, labels: [], postLevel: 1, members: { [MEMBER.id]: { level: 1 } } });
  return sim;
}

export const originsFor = (sim: { origin: string }) =>
  new Map([
    [SKOOL_API_ORIGIN, sim.origin],
    [SKOOL_UPLOAD_ORIGIN, sim.origin],
  ]);
export const platformOriginsFor = (sim: { origin: string }) => `${SKOOL_API_ORIGIN}=${sim.origin},${SKOOL_UPLOAD_ORIGIN}=${sim.origin}`;

export type TestCtx = Omit<OperationContext, 'credentials'>;

export async function withSkool<T>(fn: (sim: SkoolSimulator, ctx: TestCtx) => Promise<T>, openMedia: OperationContext['openMedia'] = () => Promise.reject(new Error('no media here'))): Promise<T> {
  const sim = await skoolSimulator();
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
  try {
    return await fn(sim, { ...testContext(http), openMedia });
  } finally {
    await http.close();
    await sim.close();
  }
}
