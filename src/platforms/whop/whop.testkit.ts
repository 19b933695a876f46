import { simulatorOrigins, withMediaSimulator, type MediaTestCtx } from '../common/platform.testkit.js';
import { startWhopSimulator, WHOP_ORIGIN, WHOP_UPLOAD_ORIGIN, type WhopSimulator, type WhopSimulatorOptions } from './whop.simulator.js';

/** Shared fixtures of the Whop tests: an app, a user in two companies with forums, a stranger's company. */

export const WHOP_APP = { clientId: 'app_tidings0001', clientSecret: 'whop_secret_0123456789abcdef' };
export const REDIRECT = 'http://localhost:3000/integrations/social/test/callback';
export const USER = { id: 'user_Acme00001', username: 'acmeteam', name: 'Acme Team', picture: 'https://assets.whop.com/avatars/acme.png' };
export const STRANGER = { id: 'user_Other0001', username: 'other', name: 'Someone Else' };
export const ACME = { id: 'biz_Acme0001', title: 'Acme Academy', members: [USER.id], forums: [{ id: 'forum_Acme01', experienceId: 'exp_AcmeNews1', name: 'Announcements' }, { id: 'forum_Acme02', experienceId: 'exp_AcmeChat1', name: 'Community chat' }] };
export const LABS = { id: 'biz_Labs0001', title: 'Acme Labs', members: [USER.id, STRANGER.id], forums: [{ id: 'forum_Labs01', experienceId: 'exp_LabsForum', name: 'Lab notes' }] };
export const ELSEWHERE = { id: 'biz_Else0001', title: 'Not yours', members: [STRANGER.id], forums: [{ id: 'forum_Else01', experienceId: 'exp_ElseForum', name: 'Private' }] };

export async function whopSimulator(opts: WhopSimulatorOptions & { redirectUris?: string[] } = {}) {
  const sim = await startWhopSimulator(opts);
  sim.addApp({ ...WHOP_APP, redirectUris: opts.redirectUris ?? [REDIRECT] });
  sim.addUser(USER);
  sim.addUser(STRANGER);
  for (const c of [ACME, LABS, ELSEWHERE]) sim.addCompany(structuredClone(c));
  sim.approveAs(USER.id);
  return sim;
}

export const { originsFor, rewriteFor, platformOriginsFor } = simulatorOrigins([WHOP_ORIGIN, WHOP_UPLOAD_ORIGIN]);

export type TestCtx = MediaTestCtx;

/** Runs `fn` against a fresh simulator with an HTTP client mapped to it; media by id from `ctx.media`. */
export const withWhop = <T>(opts: WhopSimulatorOptions, fn: (sim: WhopSimulator, ctx: TestCtx) => Promise<T>): Promise<T> =>
  withMediaSimulator({ start: () => whopSimulator(opts), origins: originsFor }, fn);
