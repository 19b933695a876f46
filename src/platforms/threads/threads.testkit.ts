import { createHash } from 'node:crypto';
import { testContext } from '../../../test/platform-contract.js';
import { startSimulator, type Simulator } from '../../../test/simulators/harness.js';
import { createPlatformHttp } from '../http.js';
import type { ConnectedAccount, OperationContext, PlatformAdapter, PublishItem, PublishResult } from '../platform.js';
import { startThreadsSimulator, THREADS_GRAPH_ORIGIN, THREADS_WWW_ORIGIN, type ThreadsSimulator, type ThreadsSimulatorOptions } from './threads.simulator.js';

/** Fixtures of the Threads tests: the OAuth app, the account, a host for the media Threads fetches. */

export const THREADS_APP = { clientId: '1234567890123456', clientSecret: 'threads-app-secret-0123456789abcdef' };
export const ADA = { id: '25219787490984316', username: 'ada.codes', name: 'Ada Lovelace', picture: 'https://scontent.cdninstagram.com/v/t51.2885-19/ada.jpg', followers: 1843 };
export const GRACE = { id: '25219787490984999', username: 'grace.h', name: 'Grace Hopper' };
/** Where the media the tests publish appear to live (the service's PUBLIC_URL in production). */
export const MEDIA_ORIGIN = 'https://media.example';
export const CALLBACK = 'https://tidings.example/integrations/social/threads/callback';

export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A static file host: what `MEDIA_ORIGIN` really is in the unit tests. */
export interface MediaHost extends Simulator {
  files: Map<string, { data: Buffer; type: string }>;
  /** serves `data` at `MEDIA_ORIGIN/<name>`; answers that public URL */
  put(name: string, data: Buffer, type: string): string;
}

export async function startMediaHost(): Promise<MediaHost> {
  const files = new Map<string, { data: Buffer; type: string }>();
  const host = await startSimulator((app) => {
    app.get('/*', async (req, reply) => {
      const f = files.get(req.url.split('?')[0]!.slice(1));
      if (!f) return reply.status(404).send('Not Found');
      return reply.type(f.type).send(f.data);
    });
  });
  return Object.assign(host, {
    files,
    put(name: string, data: Buffer, type: string) {
      files.set(name, { data, type });
      return `${MEDIA_ORIGIN}/${name}`;
    },
  });
}

export async function threadsSimulator(host: MediaHost, opts: ThreadsSimulatorOptions = {}) {
  const sim = await startThreadsSimulator({ mediaOrigins: { [MEDIA_ORIGIN]: host.origin }, ...opts });
  sim.addApp({ ...THREADS_APP, redirectUris: [CALLBACK] });
  sim.addUser(ADA);
  sim.addUser(GRACE);
  return sim;
}

export const originsFor = (sim: ThreadsSimulator) =>
  new Map([
    [THREADS_WWW_ORIGIN, sim.origin],
    [THREADS_GRAPH_ORIGIN, sim.origin],
  ]);

export const rewriteFor = (sim: ThreadsSimulator) => (url: string) => url.replace(THREADS_WWW_ORIGIN, sim.origin).replace(THREADS_GRAPH_ORIGIN, sim.origin);

export type TestCtx = Omit<OperationContext, 'credentials'>;

/** Runs `fn` against a fresh simulator and media host, with an HTTP client mapped to them. */
export async function withThreads<T>(opts: ThreadsSimulatorOptions & { clock?: { now(): number } }, fn: (sim: ThreadsSimulator, ctx: TestCtx, host: MediaHost) => Promise<T>) {
  const host = await startMediaHost();
  const sim = await threadsSimulator(host, opts);
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
  try {
    return await fn(
      sim,
      {
        ...testContext(http, opts.clock ?? { now: () => Date.now() }),
        // Threads fetches media itself: the adapter never opens the bytes.
        openMedia: () => Promise.reject(new Error('the Threads adapter must not read media bytes')),
      },
      host,
    );
  } finally {
    await http.close();
    await sim.close();
    await host.close();
  }
}

export function published(r: PublishResult) {
  if (r.status !== 'published') throw new Error(`expected published, got ${r.status}`);
  return r;
}

export function pendingToken(r: PublishResult): string {
  if (r.status !== 'pending') throw new Error(`expected pending, got ${r.status}`);
  return r.token;
}

export const post = (
  a: PlatformAdapter,
  ctx: TestCtx,
  account: ConnectedAccount,
  content: string,
  extra: { media?: PublishItem['media']; replyTo?: { id: string; rootId: string } } = {},
) => a.publish({ item: { content, media: extra.media ?? [] }, settings: {}, replyTo: extra.replyTo, idempotencyKey: content }, { ...ctx, credentials: account.credentials });

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
