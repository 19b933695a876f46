import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConnectedAccount, PlatformAdapter, PublishItem, PublishResult } from '../platform.js';
import { JPEG_1X1, PNG_1X1 } from './media.testkit.js';
import { type MediaTestCtx, published, publisher, simulatorOrigins, withMediaSimulator, withServer } from './platform.testkit.js';
import { FACEBOOK_ORIGINS, INSTAGRAM_LOGIN_ORIGINS, startMetaSimulator, type MetaSimulator, type MetaSimulatorOptions } from './meta.simulator.js';

/**
 * Shared fixtures of the `facebook`, `instagram` and `instagram-standalone` tests: one Meta
 * simulator with a Facebook user who manages three Pages (two with an Instagram professional
 * account), a Page she does not manage, the three apps, and a small server standing for the
 * service's public media URLs, which Instagram containers pull.
 */

export const FB_APP = { clientId: '1234567890123456', clientSecret: 'fb-app-secret-0123456789abcdef' };
export const IG_APP = { clientId: '2234567890123456', clientSecret: 'ig-fb-login-secret-0123456789' };
export const IG_LOGIN_APP = { clientId: '3234567890123456', clientSecret: 'ig-login-secret-0123456789ab' };

export const ADA = { id: '10000000000000001', name: 'Ada Lovelace' };
export const BAKERY = { id: '101000000000001', name: 'Acme Bakery', username: 'acmebakery', picture: 'https://scontent.xx.fbcdn.net/v/bakery.jpg' };
export const LABS = { id: '102000000000002', name: 'Acme Labs', username: 'acmelabs' };
export const BLOG = { id: '104000000000004', name: 'Acme Blog' };
export const FOREIGN = { id: '103000000000003', name: 'Someone Else’s Page' };
export const IG_BAKERY = { id: '17841400000000001', username: 'acme.bakery', name: 'Acme Bakery', profilePictureUrl: 'https://scontent.cdninstagram.com/bakery.jpg', followers: 1200 };
export const IG_LABS = { id: '17841400000000002', username: 'acme.labs', name: 'Acme Labs' };

export const FACEBOOK_SCOPES = ['pages_show_list', 'business_management', 'pages_manage_posts', 'pages_manage_engagement', 'pages_read_engagement', 'read_insights'];

export async function metaSimulator(opts: MetaSimulatorOptions = {}) {
  const sim = await startMetaSimulator(opts);
  sim.addApp({ ...FB_APP, login: 'facebook' });
  sim.addApp({ ...IG_APP, login: 'facebook' });
  sim.addApp({ ...IG_LOGIN_APP, login: 'instagram' });
  sim.addUser({ ...ADA });
  sim.addUser({ id: '10000000000000002', name: 'Charles Babbage' });
  sim.addInstagramUser({ ...IG_BAKERY, professional: true });
  sim.addInstagramUser({ ...IG_LABS, professional: true });
  sim.addPage({ ...BAKERY, managers: [ADA.id], instagramId: IG_BAKERY.id });
  sim.addPage({ ...LABS, managers: [ADA.id], instagramId: IG_LABS.id });
  sim.addPage({ ...BLOG, managers: [ADA.id] });
  sim.addPage({ ...FOREIGN, managers: ['10000000000000002'] });
  return sim;
}

/** `platformOriginsEnv`: `PLATFORM_ORIGINS` for an app whose every Meta origin is the simulator. */
export const { originsFor, rewriteFor, platformOriginsFor: platformOriginsEnv } = simulatorOrigins([...FACEBOOK_ORIGINS, ...INSTAGRAM_LOGIN_ORIGINS]);

/** A tiny server standing for a public media origin: what Instagram pulls. */
export interface MediaServer {
  origin: string;
  put(path: string, bytes: Buffer, type: string): void;
  /** how many times each path was fetched */
  hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startMediaServer(): Promise<MediaServer> {
  const files = new Map<string, { bytes: Buffer; type: string }>();
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const f = files.get(path);
    if (!f) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': f.type, 'content-length': f.bytes.length }).end(f.bytes);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    put: (path, bytes, type) => void files.set(path, { bytes, type }),
    hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export type TestCtx = MediaTestCtx;

/** Runs `fn` against a fresh simulator (and media server) with an HTTP client mapped to them. */
export const withMeta = <T>(opts: MetaSimulatorOptions & { now?: () => number }, fn: (sim: MetaSimulator, ctx: TestCtx, media: MediaServer) => Promise<T>): Promise<T> =>
  withServer(startMediaServer, (server) =>
    withMediaSimulator(
      { start: () => metaSimulator({ ...opts, mediaOrigins: { [PUBLIC_MEDIA]: server.origin, ...opts.mediaOrigins } }), origins: originsFor, now: opts.now },
      (sim, ctx) => fn(sim, ctx, server),
    ),
  );

/** Where test media items say they are served (the service's PUBLIC_URL). */
export const PUBLIC_MEDIA = 'https://tidings.example';

export { published };

export function pending(r: PublishResult) {
  if (r.status !== 'pending') throw new Error(`expected pending, got ${r.status}`);
  return r;
}

/**
 * A valid 1×1 JPEG whose comment segment holds `n` (different bytes for each `n`): what Instagram,
 * which publishes JPEG only, is handed (the publisher hands it JPEG renditions of other pictures).
 */
export function JPEG(n: number): Buffer {
  const comment = Buffer.from(`tidings ${n}`, 'latin1');
  const com = Buffer.concat([Buffer.from([0xff, 0xfe, 0, comment.length + 2]), comment]);
  return Buffer.concat([JPEG_1X1.subarray(0, 2), com, JPEG_1X1.subarray(2)]);
}

/** Bytes that start like an MP4 (`ftyp`), `n` distinguishing them, padded to `size`. */
export function MP4(n: number, size = 64): Buffer {
  const head = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom', 'latin1'), Buffer.from([0, 0, 2, 0]), Buffer.from('isommp41', 'latin1')]);
  const body = Buffer.alloc(Math.max(0, size - head.length), n & 0xff);
  return Buffer.concat([head, body]).subarray(0, Math.max(size, head.length));
}


export function image(id: string, opts: { alt?: string; type?: string; ext?: string; size?: number } = {}): PublishItem['media'][number] {
  const ext = opts.ext ?? 'png';
  return { id, path: `${PUBLIC_MEDIA}/media/2026/11/${id}.${ext}`, type: 'image', mimeType: opts.type ?? 'image/png', size: opts.size ?? 70, width: 1, height: 1, alt: opts.alt ?? null };
}

/** Instagram publishes JPEG only: the publisher hands it JPEG pictures (renditions of the others). */
export const jpegImage = (id: string, opts: Parameters<typeof image>[1] = {}) => image(id, { type: 'image/jpeg', ext: 'jpg', ...opts });

export function video(id: string, size: number): PublishItem['media'][number] {
  return { id, path: `${PUBLIC_MEDIA}/media/2026/11/${id}.mp4`, type: 'video', mimeType: 'video/mp4', size, duration: 5 };
}

/** Registers `bytes` as media item `id`: for the adapter (openMedia) and at its public URL (pulls). */
export function addMedia(ctx: TestCtx, server: MediaServer, item: PublishItem['media'][number], bytes: Buffer) {
  ctx.media.set(item.id, new Blob([bytes], { type: item.mimeType }));
  server.put(new URL(item.path).pathname, bytes, item.mimeType);
}

export const post = publisher();

/** Checks `token` until it is published (or `max` checks), returning every answer. */
export async function drive(a: PlatformAdapter, ctx: TestCtx, account: ConnectedAccount, first: PublishResult, max = 50): Promise<PublishResult[]> {
  const answers = [first];
  let r = first;
  while (r.status === 'pending' && answers.length < max) {
    r = await a.checkPublish!(r.token, { ...ctx, credentials: account.credentials });
    answers.push(r);
  }
  return answers;
}

// The contract's own picture (test/platform-contract.ts), served where its media item says it is.
const CONTRACT_PNG = PNG_1X1;
// The contract's picture for platforms that take no PNG (Instagram): a 1×1 JPEG.
const CONTRACT_JPEG = JPEG_1X1;

export { pixelPng as PNG, sha } from './media.testkit.js';
// Instagram publishes JPEG only, so the picture added to the contract's text posts is one.
const TEXT_PICTURE: PublishItem['media'][number] = { id: 'contract-text', path: 'https://media.example/text.jpg', type: 'image', mimeType: 'image/jpeg', size: CONTRACT_JPEG.length };

/**
 * Instagram has no text-only posts: the contract's text posts get a picture (thread items stay
 * text: they are comments). Everything else goes to the adapter as the contract sends it.
 */
export function withPictureForText(a: PlatformAdapter): PlatformAdapter {
  return {
    ...a,
    publish: (input, ctx) =>
      a.publish(input.replyTo || input.item.media.length > 0 ? input : { ...input, item: { ...input.item, media: [TEXT_PICTURE] } }, ctx),
  };
}

export async function contractMediaServer(): Promise<MediaServer> {
  const server = await startMediaServer();
  server.put('/1.png', CONTRACT_PNG, 'image/png');
  server.put('/1.jpg', CONTRACT_JPEG, 'image/jpeg');
  server.put('/text.jpg', CONTRACT_JPEG, 'image/jpeg');
  return server;
}
