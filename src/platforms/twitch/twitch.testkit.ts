import { noMedia, published, simulatorOrigins, withCreds, withSimulator, type TestCtx } from '../common/platform.testkit.js';
import type { ConnectedAccount, PlatformAdapter } from '../platform.js';
import { startTwitchSimulator, TWITCH_API_ORIGIN, TWITCH_ID_ORIGIN, type TwitchSimulator, type TwitchSimulatorOptions } from './twitch.simulator.js';

/** Shared fixtures of the Twitch tests: an app, a streamer, a simulator wired to an HTTP client. */

export const TWITCH_APP = { clientId: 'hof5gwx0su6owfnys0nyan9c87zr6t', clientSecret: 'twitch-client-secret' };
export const STREAMER = { id: '141981764', login: 'acmelive', display_name: 'AcmeLive', profile_image_url: 'https://static-cdn.jtvnw.net/jtv_user_pictures/acme-profile_image-300x300.png' };

export async function twitchSimulator(opts: TwitchSimulatorOptions = {}) {
  const sim = await startTwitchSimulator(opts);
  sim.addApp(TWITCH_APP);
  sim.addUser(STREAMER);
  return sim;
}

export const { originsFor, rewriteFor, platformOriginsFor } = simulatorOrigins([TWITCH_ID_ORIGIN, TWITCH_API_ORIGIN]);

export { published, withCreds, type TestCtx };

export const withTwitch = <T>(opts: TwitchSimulatorOptions, fn: (sim: TwitchSimulator, ctx: TestCtx) => Promise<T>): Promise<T> =>
  withSimulator({ start: () => twitchSimulator(opts), origins: originsFor, openMedia: noMedia('Twitch takes no media') }, fn);

export const say = (
  a: PlatformAdapter,
  ctx: TestCtx,
  account: ConnectedAccount,
  content: string,
  extra: { settings?: Record<string, unknown>; replyTo?: { id: string; rootId: string }; key?: string } = {},
) => a.publish({ item: { content, media: [] }, settings: extra.settings ?? {}, replyTo: extra.replyTo, idempotencyKey: extra.key ?? content }, withCreds(ctx, account));
