import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testContext } from '../../../test/platform-contract.js';
import type { Clock } from '../../lib/clock.js';
import { createPlatformHttp } from '../http.js';
import type { ConnectedAccount, OperationContext, PlatformAdapter, PublishItem, PublishMedia, PublishResult } from '../platform.js';
import { TIKTOK_API_ORIGIN, TIKTOK_UPLOAD_ORIGIN, TIKTOK_WWW_ORIGIN, startTiktokSimulator, type TiktokSimulator, type TiktokSimulatorOptions } from './tiktok.simulator.js';

/** Shared fixtures of the TikTok tests: the app, two users, a media server TikTok pulls from, helpers. */

export const APP = { clientKey: 'awx4tidingsclientkey', clientSecret: 'tiktok-client-secret-0123456789' };
export const ADA = { openId: '-000AdaOpenIdQk9x', username: 'ada.codes', displayName: 'Ada Lovelace', avatarUrl: 'https://p16-sign.tiktokcdn-us.com/ada.jpeg' };
export const BOB = { openId: '-000BobOpenIdZz1', username: 'bob.builds', displayName: 'Bob Builder' };
/** Where the tests' pictures are "published" (the service's PUBLIC_URL in API tests). */
export const MEDIA_ORIGIN = 'https://media.example';

/** Settings a user would send for a public direct post with every switch allowed. */
export const DIRECT: Record<string, unknown> = {
  privacy_level: 'PUBLIC_TO_EVERYONE',
  duet: false,
  stitch: false,
  comment: true,
  autoAddMusic: 'no',
  brand_content_toggle: false,
  brand_organic_toggle: false,
  content_posting_method: 'DIRECT_POST',
};

export const originsFor = (sim: TiktokSimulator) =>
  new Map([
    [TIKTOK_WWW_ORIGIN, sim.origin],
    [TIKTOK_API_ORIGIN, sim.origin],
    [TIKTOK_UPLOAD_ORIGIN, sim.origin],
  ]);

export const rewriteFor = (sim: TiktokSimulator) => (url: string) => url.replace(TIKTOK_WWW_ORIGIN, sim.origin).replace(TIKTOK_API_ORIGIN, sim.origin);

/** A tiny HTTP server holding files by path, standing in for PUBLIC_URL/media/… */
export async function startMediaServer(): Promise<{ origin: string; files: Map<string, Buffer>; close(): Promise<void> }> {
  const files = new Map<string, Buffer>();
  const server: Server = createServer((req, res) => {
    const body = files.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, files, close: () => new Promise((r) => server.close(() => r())) };
}

/** Starts the simulator with the app and both users, pulling media from `media`. */
export async function tiktokSimulator(opts: TiktokSimulatorOptions & { audited?: boolean } = {}, mediaOrigin?: string) {
  const sim = await startTiktokSimulator({ ...opts, mediaOrigins: opts.mediaOrigins ?? new Map(mediaOrigin ? [[MEDIA_ORIGIN, mediaOrigin]] : []) });
  sim.addApp({ ...APP, audited: opts.audited ?? true, verifiedPrefixes: [`${MEDIA_ORIGIN}/`] });
  sim.addUser({ ...ADA, stats: { follower_count: 1200, following_count: 80, likes_count: 5400, video_count: 31 } });
  sim.addUser({ ...BOB, privateAccount: true });
  return sim;
}

export type TestCtx = Omit<OperationContext, 'credentials'> & { media: Map<string, Blob>; files: Map<string, Buffer> };

/** Runs `fn` against a fresh simulator and media server, with an HTTP client mapped to them. */
export async function withTiktok<T>(opts: TiktokSimulatorOptions & { audited?: boolean; clock?: Clock }, fn: (sim: TiktokSimulator, ctx: TestCtx) => Promise<T>) {
  const media = await startMediaServer();
  const sim = await tiktokSimulator(opts, media.origin);
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
  const blobs = new Map<string, Blob>();
  try {
    return await fn(sim, {
      media: blobs,
      files: media.files,
      ...testContext(http, opts.clock),
      openMedia: (m) => {
        const blob = blobs.get(m.id);
        return blob ? Promise.resolve(blob) : Promise.reject(new Error(`no media ${m.id}`));
      },
    });
  } finally {
    await http.close();
    await sim.close();
    await media.close();
  }
}

export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A picture served at MEDIA_ORIGIN/<id>.<ext> (TikTok pulls it). */
export function photo(ctx: TestCtx, id: string, bytes: Buffer, mimeType = 'image/jpeg'): PublishMedia {
  const ext = mimeType.split('/')[1]!;
  ctx.files.set(`/${id}.${ext}`, bytes);
  return { id, path: `${MEDIA_ORIGIN}/${id}.${ext}`, type: 'image', mimeType, size: bytes.length, width: 64, height: 48 };
}

/** A video read through `openMedia` (uploaded by the adapter). */
export function video(ctx: TestCtx, id: string, bytes: Buffer, duration = 5): PublishMedia {
  ctx.media.set(id, new Blob([bytes], { type: 'video/mp4' }));
  return { id, path: `${MEDIA_ORIGIN}/${id}.mp4`, type: 'video', mimeType: 'video/mp4', size: bytes.length, duration };
}

/** Bytes that look like an MP4 (an `ftyp` box first), `size` long, varied by `seed`. */
export function mp4Bytes(size: number, seed = 1): Buffer {
  const b = Buffer.alloc(size);
  Buffer.from('00000018667479706d703432', 'hex').copy(b, 0);
  for (let i = 12; i < size; i++) b[i] = (i * 31 + seed * 7) & 0xff;
  return b;
}

/**
 * A real MP4 (`fixture`, moov first) grown to `total` bytes with a trailing top-level `free` box,
 * which players and TikTok skip: a video big enough to go up in several 10 MiB chunks.
 */
export function paddedMp4(fixture: Buffer, total: number): Buffer {
  const pad = total - fixture.length;
  const box = Buffer.alloc(pad);
  box.writeUInt32BE(pad, 0);
  box.write('free', 4, 'latin1');
  for (let i = 8; i < pad; i++) box[i] = (i * 131) & 0xff;
  return Buffer.concat([fixture, box]);
}

export const post = (a: PlatformAdapter, ctx: TestCtx, account: ConnectedAccount, content: string, extra: { media?: PublishMedia[]; settings?: Record<string, unknown> } = {}) =>
  a.publish({ item: { content, media: extra.media ?? [] }, settings: extra.settings ?? DIRECT, idempotencyKey: content }, { ...ctx, credentials: account.credentials });

/** Checks a pending publish until it ends (as the publisher does); the result and how many checks it took. */
export async function settle(a: PlatformAdapter, ctx: TestCtx, account: ConnectedAccount, first: PublishResult, max = 50): Promise<{ result: PublishResult; checks: number }> {
  let r = first;
  let checks = 0;
  while (r.status === 'pending') {
    if (++checks > max) throw new Error(`still pending after ${max} checks`);
    // TikTok processes in the background (pulls pictures): a breath between reads, as the publisher's seconds.
    if (checks > 1) await new Promise((resolve) => setTimeout(resolve, 5));
    r = await a.checkPublish!(r.token, { ...ctx, credentials: account.credentials });
  }
  return { result: r, checks };
}

export function published(r: PublishResult) {
  if (r.status !== 'published') throw new Error(`expected published, got ${r.status}`);
  return r;
}

/**
 * The adapter as the shared contract suite can drive it. The suite was written for platforms that
 * post text, and TikTok never answers at once. So this view does what the rest of the service
 * does around the adapter, and nothing more:
 * - settings: the suite sends `{}`; TikTok posts need the user's choices (post validation requires
 *   them), so a public direct post's settings stand in;
 * - media: TikTok has no text posts (validation needs one picture or video), so an item without
 *   media gets `picture`, a JPEG TikTok pulls; the suite's own picture is passed as it is;
 * - pending: publishing is always asynchronous on TikTok; the view checks until it ends, as the
 *   publisher does.
 * Thread items are not made up: TikTok has no replies (see the unit test, which skips that case).
 */
export function contractView(adapter: PlatformAdapter, picture: PublishMedia): PlatformAdapter {
  return {
    ...adapter,
    async publish(input, ctx) {
      const settings = Object.keys(input.settings).length > 0 ? input.settings : DIRECT;
      const item: PublishItem = input.item.media.length > 0 ? input.item : { ...input.item, media: [picture] };
      let r = await adapter.publish({ ...input, item, settings }, ctx);
      for (let i = 0; r.status === 'pending' && i < 50; i++) r = await adapter.checkPublish!(r.token, ctx);
      return r;
    },
  };
}
