import { type MediaTestCtx, published, publisher, simulatorOrigins, withMediaSimulator } from '../common/platform.testkit.js';
import type { PublishItem } from '../platform.js';
import { startTumblrSimulator, TUMBLR_API_ORIGIN, TUMBLR_WWW_ORIGIN, type TumblrSimulator, type TumblrSimulatorOptions } from './tumblr.simulator.js';

/** Shared fixtures of the Tumblr tests: an app, a user with two blogs, media bytes, a simulator wired to an HTTP client. */

export const TUMBLR_APP = { clientId: 'tumblr-consumer-key-0001', clientSecret: 'tumblr-consumer-secret' };
export const MAIN_BLOG = { uuid: 't:Qx7vJk2mRb9aLw3cZp1n', name: 'acme-studio', title: 'Acme Studio', primary: true };
export const SIDE_BLOG = { uuid: 't:Hh4sTt8yUu2iOo6pAa0s', name: 'acme-sketches', title: 'Sketches', primary: false };
export const USER = { name: 'acmeperson', blogs: [SIDE_BLOG, MAIN_BLOG] };
export const OTHER_BLOG = { uuid: 't:Zz9xXx8cCc7vVv6bBb5n', name: 'someone-else', title: 'Not yours', primary: true };

export async function tumblrSimulator(opts: TumblrSimulatorOptions = {}) {
  const sim = await startTumblrSimulator(opts);
  sim.addApp(TUMBLR_APP);
  sim.addUser({ name: USER.name, blogs: USER.blogs.map((b) => ({ ...b })) });
  sim.addUser({ name: 'someoneelse', blogs: [{ ...OTHER_BLOG }] });
  return sim;
}

export const { originsFor, rewriteFor, platformOriginsFor } = simulatorOrigins([TUMBLR_API_ORIGIN, TUMBLR_WWW_ORIGIN]);

export type TestCtx = MediaTestCtx;
export { published };

/** Runs `fn` against a fresh simulator with an HTTP client mapped to it; media bytes from `ctx.media` by id. */
export const withTumblr = <T>(opts: TumblrSimulatorOptions & { now?: () => number }, fn: (sim: TumblrSimulator, ctx: TestCtx) => Promise<T>): Promise<T> =>
  withMediaSimulator({ start: () => tumblrSimulator(opts), origins: originsFor, now: opts.now }, fn);

export { pixelPng as PNG, sha } from '../common/media.testkit.js';

/** The start of an MP4 (an `ftyp` box) and some bytes: enough for the simulator to take it as a video. */
export function MP4(n: number, size = 64): Buffer {
  const b = Buffer.alloc(size, n & 0xff);
  Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex').copy(b);
  return b;
}

export function image(id: string, opts: { alt?: string; width?: number; height?: number } = {}): PublishItem['media'][number] {
  return { id, path: `https://tidings.example/media/${id}.png`, type: 'image', mimeType: 'image/png', size: 70, width: opts.width ?? 1, height: opts.height ?? 1, alt: opts.alt ?? null };
}

export function video(id: string, size: number): PublishItem['media'][number] {
  return { id, path: `https://tidings.example/media/${id}.mp4`, type: 'video', mimeType: 'video/mp4', size, width: 1280, height: 720, duration: 5 };
}

export const publishWith = publisher();
