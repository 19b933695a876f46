import { testContext } from '../../../test/platform-contract.js';
import { createPlatformHttp } from '../http.js';
import type { ConnectedAccount, OperationContext, PlatformAdapter, PublishResult } from '../platform.js';
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

export const originsFor = (sim: TwitchSimulator) =>
  new Map([
    [TWITCH_ID_ORIGIN, sim.origin],
    [TWITCH_API_ORIGIN, sim.origin],
  ]);

export const rewriteFor = (sim: TwitchSimulator) => (url: string) => url.replace(TWITCH_ID_ORIGIN, sim.origin).replace(TWITCH_API_ORIGIN, sim.origin);

export const platformOriginsFor = (sim: TwitchSimulator) => [...originsFor(sim)].map(([real, to]) => `${real}=${to}`).join(',');

export type TestCtx = Omit<OperationContext, 'credentials'>;

export async function withTwitch<T>(opts: TwitchSimulatorOptions, fn: (sim: TwitchSimulator, ctx: TestCtx) => Promise<T>): Promise<T> {
  const sim = await twitchSimulator(opts);
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
  try {
    return await fn(sim, { ...testContext(http), openMedia: () => Promise.reject(new Error('Twitch takes no media')) });
  } finally {
    await http.close();
    await sim.close();
  }
}

export function published(r: PublishResult) {
  if (r.status !== 'published') throw new Error(`expected published, got ${r.status}`);
  return r;
}

export const withCreds = (ctx: TestCtx, account: ConnectedAccount): OperationContext => ({ ...ctx, credentials: account.credentials });

export const say = (
  a: PlatformAdapter,
  ctx: TestCtx,
  account: ConnectedAccount,
  content: string,
  extra: { settings?: Record<string, unknown>; replyTo?: { id: string; rootId: string }; key?: string } = {},
) => a.publish({ item: { content, media: [] }, settings: extra.settings ?? {}, replyTo: extra.replyTo, idempotencyKey: extra.key ?? content }, withCreds(ctx, account));
