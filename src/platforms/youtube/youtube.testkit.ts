import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type MediaTestCtx, publisher, simulatorOrigins, withMediaSimulator } from '../common/platform.testkit.js';
import type { ConnectedAccount, PlatformAdapter, PublishMedia, PublishResult } from '../platform.js';
import { GOOGLE_ORIGINS, startYoutubeSimulator, type YoutubeSimulator, type YoutubeSimulatorOptions } from './youtube.simulator.js';

/** Shared fixtures of the YouTube tests: a Google user with two channels, the OAuth app, helpers. */

export const APP = { clientId: '734518092011-4ksd0t3qqbl5fcm1n2qbe1a8lbk0v2s1.apps.googleusercontent.com', clientSecret: 'GOCSPX-Zq3x9Lw2TidingsTest' };
export const ADA = { sub: '109876543210987654321', name: 'Ada Lovelace', email: 'ada@example.com' };
export const MAIN_CHANNEL = { id: 'UCadaMainChannel00000001', owner: ADA.sub, title: 'Ada Makes Things', customUrl: '@adamakesthings', subscriberCount: 1520, viewCount: 48_000 };
export const BRAND_CHANNEL = { id: 'UCadaBrandChannel0000002', owner: ADA.sub, title: 'Analytical Engines', customUrl: '@analyticalengines', subscriberCount: 87, viewCount: 900 };

export async function youtubeSimulator(opts: YoutubeSimulatorOptions = {}) {
  const sim = await startYoutubeSimulator(opts);
  sim.addApp(APP);
  sim.addUser(ADA);
  sim.addChannel(MAIN_CHANNEL);
  sim.addChannel(BRAND_CHANNEL);
  sim.addUser({ sub: '100000000000000000002', name: 'Charles Babbage', email: 'charles@example.com' });
  sim.addChannel({ id: 'UCcharlesChannel00000003', owner: '100000000000000000002', title: 'Difference Works' });
  return sim;
}

/** `platformOriginsEnv`: `PLATFORM_ORIGINS` for a server whose Google hosts are this simulator. */
export const { originsFor, rewriteFor, platformOriginsFor: platformOriginsEnv } = simulatorOrigins(GOOGLE_ORIGINS);

export type TestCtx = MediaTestCtx;

/** Runs `fn` against a fresh simulator with an HTTP client mapped to it; media by id from `ctx.media`. */
export const withYoutube = <T>(opts: YoutubeSimulatorOptions & { now?: () => number }, fn: (sim: YoutubeSimulator, ctx: TestCtx) => Promise<T>): Promise<T> =>
  withMediaSimulator({ start: () => youtubeSimulator(opts), origins: originsFor, now: opts.now }, fn);

export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
export const KiB = 1024;

/** Random bytes standing for a video of `size` bytes, registered as media `id` in `ctx`. */
export function addVideo(ctx: TestCtx, id: string, size: number): { media: PublishMedia; bytes: Buffer } {
  const bytes = randomBytes(size);
  ctx.media.set(id, new Blob([bytes], { type: 'video/mp4' }));
  return { media: { id, path: `https://tidings.example/media/${id}.mp4`, type: 'video', mimeType: 'video/mp4', size, duration: 5 }, bytes };
}

export const SETTINGS = { __type: 'youtube', title: 'How we schedule posts', type: 'unlisted' };

export const post = publisher(SETTINGS);

/** Calls `checkPublish` until the publish is done (or `max` checks); the results of every check. */
export async function drive(a: PlatformAdapter, ctx: TestCtx, account: ConnectedAccount, first: PublishResult, max = 50): Promise<PublishResult[]> {
  const results = [first];
  let r = first;
  while (r.status === 'pending' && results.length <= max) {
    r = await a.checkPublish!(r.token, { ...ctx, credentials: account.credentials });
    results.push(r);
  }
  return results;
}

export function published(r: PublishResult | undefined) {
  if (r?.status !== 'published') throw new Error(`expected published, got ${JSON.stringify(r)}`);
  return r;
}

export function pendingToken(r: PublishResult): string {
  if (r.status !== 'pending') throw new Error(`expected pending, got ${JSON.stringify(r)}`);
  return r.token;
}

/**
 * The adapter as the shared contract suite drives it. The suite publishes text, a picture and
 * replies with no settings and expects `published` from `publish`; YouTube publishes one video
 * with a title and finishes asynchronously. So this wrapper gives the first item what YouTube
 * needs — the item's file (or the suite's picture bytes) sent as the video, a title and a privacy —
 * and drives `checkPublish` to the end. Everything else (connect, refresh, comments, the errors
 * of the first request) is the adapter itself.
 */
export function contractAdapter(adapter: PlatformAdapter): PlatformAdapter {
  return {
    ...adapter,
    async publish(input, ctx) {
      if (input.replyTo) return adapter.publish(input, ctx);
      const source = input.item.media[0];
      const media: PublishMedia[] = [
        source ? { ...source, type: 'video', mimeType: 'video/mp4' } : { id: 'contract-video', path: 'https://media.example/contract.mp4', type: 'video', mimeType: 'video/mp4', size: 0 },
      ];
      let r = await adapter.publish({ ...input, item: { ...input.item, media }, settings: { title: 'Contract video', type: 'unlisted', ...input.settings } }, ctx);
      for (let i = 0; r.status === 'pending' && i < 20; i++) r = await adapter.checkPublish!(r.token, ctx);
      return r;
    },
  };
}

/** The real 2 s H.264 + AAC MP4 of the media fixtures (test/fixtures/media/README.md). */
export const MP4_FIXTURE = fileURLToPath(new URL('../../../test/fixtures/media/h264-aac-faststart.mp4', import.meta.url));

/**
 * The fixture MP4 grown to about `size` bytes by a trailing `free` box (padding an MP4 may carry
 * anywhere), so that it goes to YouTube in several chunks and still reads as the same video.
 * `seed` makes the padding, and so the bytes, differ from one call to another.
 */
export async function paddedMp4(size: number, seed = 0): Promise<Buffer> {
  const mp4 = await readFile(MP4_FIXTURE);
  const pad = Math.max(8, size - mp4.length);
  const box = Buffer.alloc(pad, seed & 0xff);
  box.writeUInt32BE(pad, 0);
  box.write('free', 4, 'latin1');
  return Buffer.concat([mp4, box]);
}
