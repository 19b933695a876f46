import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testContext } from '../../../test/platform-contract.js';
import { createPlatformHttp } from '../http.js';
import type { ConnectedAccount, OperationContext, PlatformAdapter, PublishItem, PublishResult } from '../platform.js';
import {
  PINTEREST_API_ORIGIN,
  PINTEREST_UPLOAD_ORIGIN,
  PINTEREST_WWW_ORIGIN,
  startPinterestSimulator,
  type PinterestSimulator,
  type PinterestSimulatorOptions,
} from './pinterest.simulator.js';

/** Shared fixtures of the Pinterest tests: an app, a user with boards, media bytes, a simulator wired to an HTTP client. */

export const PINTEREST_APP = { clientId: '1500123', clientSecret: 'pinterest-client-secret' };
export const PINNER = { id: '549755885175', username: 'acmekitchen', business_name: 'Acme Kitchen', profile_image: 'https://i.pinimg.com/600x600_R/ac/me/acme.jpg' };
export const RECIPES = '1020276715534519295';
export const TRAVEL = '1020276715534519296';

export async function pinterestSimulator(opts: PinterestSimulatorOptions = {}) {
  const sim = await startPinterestSimulator(opts);
  sim.addApp(PINTEREST_APP);
  sim.addUser(PINNER);
  sim.addBoard({ id: RECIPES, name: 'Recipes', owner: PINNER.id });
  sim.addBoard({ id: TRAVEL, name: 'Travel', owner: PINNER.id });
  sim.addUser({ id: '549755885999', username: 'someoneelse' });
  sim.addBoard({ id: '1020276715534519999', name: 'Not yours', owner: '549755885999' });
  return sim;
}

export const originsFor = (sim: PinterestSimulator) =>
  new Map([
    [PINTEREST_API_ORIGIN, sim.origin],
    [PINTEREST_WWW_ORIGIN, sim.origin],
    [PINTEREST_UPLOAD_ORIGIN, sim.origin],
  ]);

export const rewriteFor = (sim: PinterestSimulator) => (url: string) =>
  url.replace(PINTEREST_WWW_ORIGIN, sim.origin).replace(PINTEREST_API_ORIGIN, sim.origin).replace(PINTEREST_UPLOAD_ORIGIN, sim.origin);

/** `PLATFORM_ORIGINS` for a service talking to this simulator. */
export const platformOriginsFor = (sim: PinterestSimulator) => [...originsFor(sim)].map(([real, to]) => `${real}=${to}`).join(',');

export type TestCtx = Omit<OperationContext, 'credentials'> & { media: Map<string, Blob> };

/** A tiny web server standing for the service's public media URLs (what Pinterest pulls). */
export async function startMediaHost(files: Map<string, Buffer>): Promise<{ origin: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const body = files.get(req.url ?? '');
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, hits, close: () => new Promise((r) => server.close(() => r())) };
}

/** The public origin media paths use in these tests. */
export const MEDIA_ORIGIN = 'https://tidings.example';

/** Runs `fn` against a fresh simulator (and a media host for pulled pictures) with an HTTP client mapped to it. */
export async function withPinterest<T>(
  opts: PinterestSimulatorOptions & { now?: () => number; files?: Map<string, Buffer> },
  fn: (sim: PinterestSimulator, ctx: TestCtx, host: { hits: string[] }) => Promise<T>,
): Promise<T> {
  const files = opts.files ?? new Map<string, Buffer>();
  const host = await startMediaHost(files);
  const sim = await pinterestSimulator({ mediaOrigins: { [MEDIA_ORIGIN]: host.origin }, ...opts });
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
  const media = new Map<string, Blob>();
  try {
    return await fn(
      sim,
      {
        media,
        ...testContext(http, { now: opts.now ?? (() => Date.now()) }),
        openMedia: (m) => {
          const blob = media.get(m.id);
          return blob ? Promise.resolve(blob) : Promise.reject(new Error(`no media ${m.id}`));
        },
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

export function pending(r: PublishResult) {
  if (r.status !== 'pending') throw new Error(`expected pending, got ${r.status}`);
  return r;
}

export { pixelPng as PNG, sha } from '../common/media.testkit.js';

/** A 1×1 GIF whose colour is `n`. */
export function GIF(n: number): Buffer {
  return Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([1, 0, 1, 0, 0x80, 0, 0, n & 0xff, 0, 0, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3b])]);
}

/** The start of an MP4 (an `ftyp` box) and some bytes: enough for the simulator to take it as a video. */
export function MP4(n: number, size = 64): Buffer {
  const b = Buffer.alloc(size, n & 0xff);
  Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex').copy(b);
  return b;
}

export function image(id: string, opts: { alt?: string; mimeType?: string; width?: number; height?: number } = {}): PublishItem['media'][number] {
  const mimeType = opts.mimeType ?? 'image/png';
  return { id, path: `${MEDIA_ORIGIN}/media/2026/01/${id}.${mimeType.split('/')[1]}`, type: 'image', mimeType, size: 70, width: opts.width ?? 1, height: opts.height ?? 1, alt: opts.alt ?? null };
}

export function video(id: string, size: number): PublishItem['media'][number] {
  return { id, path: `${MEDIA_ORIGIN}/media/2026/01/${id}.mp4`, type: 'video', mimeType: 'video/mp4', size, duration: 5 };
}

export const publishWith = (
  a: PlatformAdapter,
  ctx: TestCtx,
  account: ConnectedAccount,
  content: string,
  extra: { media?: PublishItem['media']; settings?: Record<string, unknown>; replyTo?: { id: string; rootId: string } } = {},
) => a.publish({ item: { content, media: extra.media ?? [] }, settings: extra.settings ?? { board: RECIPES }, replyTo: extra.replyTo, idempotencyKey: content }, { ...ctx, credentials: account.credentials });
