import { noMedia, published, simulatorOrigins, withCreds, withSimulator, type TestCtx } from '../common/platform.testkit.js';
import type { ConnectedAccount, PlatformAdapter } from '../platform.js';
import { KICK_API_ORIGIN, KICK_ID_ORIGIN, startKickSimulator, type KickSimulator } from './kick.simulator.js';

/** Shared fixtures of the Kick tests: an app, a streamer, a simulator wired to an HTTP client. */

export const KICK_APP = { clientId: '01JKICKCLIENT0000000000000', clientSecret: 'kick-client-secret' };
export const STREAMER = { user_id: 4377088, name: 'AcmeLive', slug: 'acmelive', profile_picture: 'https://files.kick.com/images/user/4377088/profile_image/acme.webp' };
export const OTHER = { user_id: 5100200, name: 'SomeoneElse' };

export async function kickSimulator() {
  const sim = await startKickSimulator();
  sim.addApp(KICK_APP);
  sim.addUser(STREAMER);
  sim.addUser(OTHER);
  return sim;
}

export const { originsFor, rewriteFor, platformOriginsFor } = simulatorOrigins([KICK_ID_ORIGIN, KICK_API_ORIGIN]);

export { published, withCreds, type TestCtx };

export const withKick = <T>(fn: (sim: KickSimulator, ctx: TestCtx) => Promise<T>): Promise<T> =>
  withSimulator({ start: kickSimulator, origins: originsFor, openMedia: noMedia('Kick takes no media') }, fn);

export const say = (a: PlatformAdapter, ctx: TestCtx, account: ConnectedAccount, content: string, replyTo?: { id: string; rootId: string }) =>
  a.publish({ item: { content, media: [] }, settings: {}, replyTo, idempotencyKey: content }, withCreds(ctx, account));
