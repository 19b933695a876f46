import { testContext } from '../../../test/platform-contract.js';
import { createPlatformHttp } from '../http.js';
import type { ConnectedAccount, OperationContext, PlatformAdapter, PublishResult } from '../platform.js';
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

export const originsFor = (sim: KickSimulator) =>
  new Map([
    [KICK_ID_ORIGIN, sim.origin],
    [KICK_API_ORIGIN, sim.origin],
  ]);

export const rewriteFor = (sim: KickSimulator) => (url: string) => url.replace(KICK_ID_ORIGIN, sim.origin).replace(KICK_API_ORIGIN, sim.origin);

/** `PLATFORM_ORIGINS` for a service talking to this simulator. */
export const platformOriginsFor = (sim: KickSimulator) => [...originsFor(sim)].map(([real, to]) => `${real}=${to}`).join(',');

export type TestCtx = Omit<OperationContext, 'credentials'>;

export async function withKick<T>(fn: (sim: KickSimulator, ctx: TestCtx) => Promise<T>): Promise<T> {
  const sim = await kickSimulator();
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
  try {
    return await fn(sim, { ...testContext(http), openMedia: () => Promise.reject(new Error('Kick takes no media')) });
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

export const say = (a: PlatformAdapter, ctx: TestCtx, account: ConnectedAccount, content: string, replyTo?: { id: string; rootId: string }) =>
  a.publish({ item: { content, media: [] }, settings: {}, replyTo, idempotencyKey: content }, withCreds(ctx, account));
