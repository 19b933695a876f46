import { platformOriginsOf, withMediaSimulator, type MediaTestCtx } from '../common/platform.testkit.js';
import { LISTMONK_ROOT, startListmonkSimulator, type ListmonkSimulator, type ListmonkSimulatorOptions } from './listmonk.simulator.js';

/** Shared fixtures of the listmonk tests: an instance with an API user, lists and templates. */

export const INSTANCE = LISTMONK_ROOT;
/** an address that answers nothing (a closed port on loopback) */
export const DOWN_INSTANCE = 'https://down.example.com';
export const API_USER = { username: 'tidings', token: 'kq7RzV1mN3pXc9bT2sLw8yHd' };
/** the role Tidings needs: campaigns, lists, templates, media, analytics (and settings, for the site name) */
export const TIDINGS_PERMISSIONS = ['campaigns:get_all', 'campaigns:manage_all', 'campaigns:get_analytics', 'lists:get_all', 'templates:get', 'media:manage', 'settings:get'];
export const NEWSLETTER = 3;
export const BETA = 5;

export async function listmonkSimulator(opts: ListmonkSimulatorOptions = {}) {
  const sim = await startListmonkSimulator(opts);
  sim.addUser({ ...API_USER, permissions: TIDINGS_PERMISSIONS });
  // No settings:get: the channel is named after the host.
  sim.addUser({ username: 'nosettings', token: 'tok-nosettings', permissions: TIDINGS_PERMISSIONS.filter((p) => p !== 'settings:get') });
  // May read campaigns only: connecting is refused on the user.
  sim.addUser({ username: 'viewer', token: 'tok-viewer', permissions: ['campaigns:get_all'] });
  sim.addList({ id: NEWSLETTER, name: 'Newsletter', type: 'public', subscriberCount: 120 });
  sim.addList({ id: BETA, name: 'Beta testers', type: 'private', subscriberCount: 14 });
  return sim;
}

export const originsFor = (sim: ListmonkSimulator) =>
  new Map([
    [INSTANCE, sim.origin],
    [DOWN_INSTANCE, 'http://127.0.0.1:1'],
  ]);

/** `PLATFORM_ORIGINS` for a service talking to this simulator. */
export const platformOriginsFor = (sim: ListmonkSimulator) => platformOriginsOf(originsFor(sim));

export type TestCtx = MediaTestCtx;

export const withListmonk = <T>(fn: (sim: ListmonkSimulator, ctx: TestCtx) => Promise<T>, opts: { now?: () => number } = {}): Promise<T> =>
  withMediaSimulator({ start: () => listmonkSimulator(), origins: originsFor, now: opts.now }, fn);
