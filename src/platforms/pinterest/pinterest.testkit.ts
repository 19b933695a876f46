import { startMediaHost } from '../common/media-host.testkit.js';
import { type MediaTestCtx, published, publisher, simulatorOrigins, withMediaSimulator, withServer } from '../common/platform.testkit.js';
import type { PublishItem, PublishResult } from '../platform.js';
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

export const { originsFor, rewriteFor, platformOriginsFor } = simulatorOrigins([PINTEREST_API_ORIGIN, PINTEREST_WWW_ORIGIN, PINTEREST_UPLOAD_ORIGIN]);

export type TestCtx = MediaTestCtx;

/** A tiny web server standing for the service's public media URLs (what Pinterest pulls). */
export { startMediaHost };

/** The public origin media paths use in these tests. */
export const MEDIA_ORIGIN = 'https://tidings.example';

/** Runs `fn` against a fresh simulator (and a media host for pulled pictures) with an HTTP client mapped to it. */
export const withPinterest = <T>(
  opts: PinterestSimulatorOptions & { now?: () => number; files?: Map<string, Buffer> },
  fn: (sim: PinterestSimulator, ctx: TestCtx, host: { hits: string[] }) => Promise<T>,
): Promise<T> =>
  withServer(
    () => startMediaHost(opts.files ?? new Map<string, Buffer>()),
    (host) => withMediaSimulator({ start: () => pinterestSimulator({ mediaOrigins: { [MEDIA_ORIGIN]: host.origin }, ...opts }), origins: originsFor, now: opts.now }, (sim, ctx) => fn(sim, ctx, host)),
  );

export { published };

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

export const publishWith = publisher({ board: RECIPES });
