import { startPublicMediaHost, type PublicMediaHost } from '../common/media-host.testkit.js';
import { noMedia, published, publisher, simulatorOrigins, type TestCtx, withServer, withSimulator } from '../common/platform.testkit.js';
import type { ConnectedAccount, PlatformAdapter, PublishItem, PublishResult } from '../platform.js';
import { startThreadsSimulator, THREADS_GRAPH_ORIGIN, THREADS_WWW_ORIGIN, type ThreadsSimulator, type ThreadsSimulatorOptions } from './threads.simulator.js';

/** Fixtures of the Threads tests: the OAuth app, the account, a host for the media Threads fetches. */

export const THREADS_APP = { clientId: '1234567890123456', clientSecret: 'threads-app-secret-0123456789abcdef' };
export const ADA = { id: '25219787490984316', username: 'ada.codes', name: 'Ada Lovelace', picture: 'https://scontent.cdninstagram.com/v/t51.2885-19/ada.jpg', followers: 1843 };
export const GRACE = { id: '25219787490984999', username: 'grace.h', name: 'Grace Hopper' };
/** Where the media the tests publish appear to live (the service's PUBLIC_URL in production). */
export const MEDIA_ORIGIN = 'https://media.example';
export const CALLBACK = 'https://tidings.example/integrations/social/threads/callback';

export { sha } from '../common/media-host.testkit.js';

/** A static file host: what `MEDIA_ORIGIN` really is in the unit tests. */
export type MediaHost = PublicMediaHost;
export const startMediaHost = (): Promise<MediaHost> => startPublicMediaHost(MEDIA_ORIGIN);

export async function threadsSimulator(host: MediaHost, opts: ThreadsSimulatorOptions = {}) {
  const sim = await startThreadsSimulator({ mediaOrigins: { [MEDIA_ORIGIN]: host.origin }, ...opts });
  sim.addApp({ ...THREADS_APP, redirectUris: [CALLBACK] });
  sim.addUser(ADA);
  sim.addUser(GRACE);
  return sim;
}

export const { originsFor, rewriteFor } = simulatorOrigins([THREADS_WWW_ORIGIN, THREADS_GRAPH_ORIGIN]);

export { published, type TestCtx };

/** Runs `fn` against a fresh simulator and media host, with an HTTP client mapped to them. */
export const withThreads = <T>(opts: ThreadsSimulatorOptions & { clock?: { now(): number } }, fn: (sim: ThreadsSimulator, ctx: TestCtx, host: MediaHost) => Promise<T>): Promise<T> =>
  withServer(startMediaHost, (host) =>
    withSimulator(
      {
        start: () => threadsSimulator(host, opts),
        origins: originsFor,
        clock: opts.clock,
        // Threads fetches media itself: the adapter never opens the bytes.
        openMedia: noMedia('the Threads adapter must not read media bytes'),
      },
      (sim, ctx) => fn(sim, ctx, host),
    ),
  );

export function pendingToken(r: PublishResult): string {
  if (r.status !== 'pending') throw new Error(`expected pending, got ${r.status}`);
  return r.token;
}

export const post = publisher();

export const check = (a: PlatformAdapter, ctx: TestCtx, account: ConnectedAccount, token: string) => a.checkPublish!(token, { ...ctx, credentials: account.credentials });

export function imageAt(url: string, id = url.split('/').pop()!, alt?: string): PublishItem['media'][number] {
  return { id, path: url, type: 'image', mimeType: url.endsWith('.jpg') ? 'image/jpeg' : 'image/png', size: 100, width: 1, height: 1, alt: alt ?? null };
}

export function videoAt(url: string, id = url.split('/').pop()!): PublishItem['media'][number] {
  return { id, path: url, type: 'video', mimeType: 'video/mp4', size: 1000, duration: 2 };
}

/** A tiny file that Threads' sniffing takes for an MP4 (an `ftyp` box), different for each `n`. */
export function MP4(n: number): Buffer {
  const ftyp = Buffer.from('0000001c667479706973736f6d0000020069736f6d69736f326d703431', 'hex');
  return Buffer.concat([ftyp, Buffer.from(`mdat-${n}-`.repeat(20))]);
}
