import { testContext } from '../../../test/platform-contract.js';
import type { Clock } from '../../lib/clock.js';
import { createPlatformHttp, type PlatformHttpClient } from '../http.js';
import type { ConnectedAccount, Credentials, OperationContext, PlatformAdapter, PublishItem, PublishResult } from '../platform.js';

/**
 * The generic test kit of a platform folder: what every `<id>.testkit.ts` used to write for itself.
 *
 * In `<id>.testkit.ts`:
 *
 *   export const { originsFor, rewriteFor, platformOriginsFor } = simulatorOrigins([KICK_ID_ORIGIN, KICK_API_ORIGIN]);
 *   export { published, withCreds, type TestCtx } from '../common/platform.testkit.js';
 *
 *   export const withKick = <T>(fn: (sim: KickSimulator, ctx: TestCtx) => Promise<T>) =>
 *     withSimulator({ start: kickSimulator, origins: originsFor, openMedia: noMedia('Kick takes no media') }, fn);
 *
 * A simulator beside another server (a media host the platform fetches from): start that one with
 * `withServer` around `withSimulator`; it is closed last, after the client and the simulator.
 *
 *   withServer(startMediaHost, (host) =>
 *     withSimulator({ start: () => gmbSimulator({ mediaOrigins: { [MEDIA_ORIGIN]: host.origin } }), origins: originsFor, clock }, (sim, ctx) => fn(sim, ctx, host)));
 */

/** An operation context without credentials: what a test has before an account is connected. */
export type TestCtx = Omit<OperationContext, 'credentials'>;

/** Anything a test starts and must close (a simulator, a media host). */
export interface Closable {
  close(): Promise<void>;
}

/** real origin → simulator origin */
export type OriginMap = Map<string, string>;

/**
 * The three views of "these real origins are served by the simulator": the client's origin map,
 * a URL rewrite (for authorisation URLs a test opens itself) and the `PLATFORM_ORIGINS` value a
 * whole app (api tests) is started with.
 */
export function simulatorOrigins(realOrigins: readonly string[]) {
  const originsFor = (sim: { origin: string }): OriginMap => new Map(realOrigins.map((o) => [o, sim.origin]));
  return {
    originsFor,
    rewriteFor: (sim: { origin: string }) => (url: string) => realOrigins.reduce((u, o) => u.replace(o, sim.origin), url),
    /** `PLATFORM_ORIGINS` for a service talking to this simulator. */
    platformOriginsFor: (sim: { origin: string }) => platformOriginsOf(originsFor(sim)),
  };
}

/** An origin map as `PLATFORM_ORIGINS` spells it (`real=to,real=to`). */
export const platformOriginsOf = (origins: OriginMap) => [...origins].map(([real, to]) => `${real}=${to}`).join(',');

/** `openMedia` for a platform (or a test) that must never read media bytes: rejects, saying why. */
export const noMedia =
  (why: string): OperationContext['openMedia'] =>
  () =>
    Promise.reject(new Error(why));

/** `openMedia` answering from a map of media id → bytes the test fills. */
export const mediaFrom =
  (blobs: Map<string, Blob>): OperationContext['openMedia'] =>
  (m) => {
    const blob = blobs.get(m.id);
    return blob ? Promise.resolve(blob) : Promise.reject(new Error(`no media ${m.id}`));
  };

export interface WithSimulatorOptions<S extends Closable> {
  /** starts the simulator (and seeds it with the test's apps and users) */
  start: () => Promise<S>;
  /** the real origins the simulator stands for: `originsFor` from `simulatorOrigins`, or any map */
  origins: (sim: S) => OriginMap;
  /** the context's clock (default: the system clock) */
  clock?: Clock;
  /** the context's `openMedia` (default: rejects, no media in this test) */
  openMedia?: OperationContext['openMedia'];
  /** the HTTP client's timeout (default 5 s) */
  timeoutMs?: number;
}

/**
 * Starts the simulator, builds the platform HTTP client with its origins rewritten to it (no
 * private targets, as in production), runs `fn` with a test context, and always closes the client
 * and then the simulator.
 */
export async function withSimulator<S extends Closable, T>(opts: WithSimulatorOptions<S>, fn: (sim: S, ctx: TestCtx, http: PlatformHttpClient) => Promise<T>): Promise<T> {
  const sim = await opts.start();
  let http: PlatformHttpClient | undefined;
  try {
    http = createPlatformHttp({ origins: opts.origins(sim), allowPrivateTargets: false, timeoutMs: opts.timeoutMs ?? 5000 });
    return await fn(sim, { ...testContext(http, opts.clock), openMedia: opts.openMedia ?? noMedia('no media in this test') }, http);
  } finally {
    await http?.close();
    await sim.close();
  }
}

/** A test context carrying the media bytes the test registers by id (`ctx.media`), which `openMedia` reads. */
export type MediaTestCtx = TestCtx & { media: Map<string, Blob> };

/** `withSimulator` for a test that puts media bytes in `ctx.media` by id (read by `openMedia`); `now` sets the clock. */
export function withMediaSimulator<S extends Closable, T>(
  opts: Omit<WithSimulatorOptions<S>, 'openMedia' | 'clock'> & { now?: () => number },
  fn: (sim: S, ctx: MediaTestCtx, http: PlatformHttpClient) => Promise<T>,
): Promise<T> {
  const media = new Map<string, Blob>();
  const { now, ...rest } = opts;
  return withSimulator({ ...rest, clock: now ? { now } : undefined, openMedia: mediaFrom(media) }, (sim, ctx, http) => fn(sim, { media, ...ctx }, http));
}

/** Starts a server the test needs beside the simulator (a media host), runs `fn`, always closes it. */
export async function withServer<S extends Closable, T>(start: () => Promise<S>, fn: (server: S) => Promise<T>): Promise<T> {
  const server = await start();
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/** The result of a publish that must have gone through at once. */
export function published(r: PublishResult): Extract<PublishResult, { status: 'published' }> {
  if (r.status !== 'published') throw new Error(`expected published, got ${r.status}`);
  return r;
}

/** What a test's publish call may add to the text: media, settings (default: the kit's) and the thread item it answers. */
export interface PublishExtra {
  media?: PublishItem['media'];
  settings?: Record<string, unknown>;
  replyTo?: { id: string; rootId: string };
}

/** A kit's publish helper: `content` (its idempotency key too) as the connected account, with `settings` unless the test gives its own. */
export const publisher =
  (settings: Record<string, unknown> = {}) =>
  (a: PlatformAdapter, ctx: TestCtx, account: ConnectedAccount, content: string, extra: PublishExtra = {}) =>
    a.publish({ item: { content, media: extra.media ?? [] }, settings: extra.settings ?? settings, replyTo: extra.replyTo, idempotencyKey: content }, { ...ctx, credentials: account.credentials });

/** The context with a connected account's credentials. */
export const withCreds = <C extends TestCtx>(ctx: C, account: { credentials: Credentials }): C & { credentials: Credentials } => ({ ...ctx, credentials: account.credentials });
