import { createHash } from 'node:crypto';
import { type MediaTestCtx, published, publisher, simulatorOrigins, withMediaSimulator } from '../common/platform.testkit.js';
import type { PublishItem } from '../platform.js';
import { startVkSimulator, VK_API_ORIGIN, VK_ID_ORIGIN, VK_PHOTO_UPLOAD_ORIGIN, VK_VIDEO_UPLOAD_ORIGIN, type VkSimulator, type VkSimulatorOptions } from './vk.simulator.js';

/** Shared fixtures of the VK tests: an app, a user managing two communities, media bytes, a simulator wired to an HTTP client. */

export const VK_APP = { clientId: '51234567', clientSecret: 'vk-protected-key' };
export const VK_USER = { id: '1234567', first_name: 'Pavel', last_name: 'Sokolov', avatar: 'https://sun1-1.userapi.com/s/v1/ig2/pavel.jpg' };
export const OTHER_USER = { id: '7654321', first_name: 'Olga', last_name: 'Other' };
/** a community the user administers */
export const BAKERY = { id: '218000111', name: 'Bakery on Lenina', screen_name: 'bakery_lenina', managers: { [VK_USER.id]: 'admin' as const } };
/** one they edit */
export const NEWS = { id: '218000222', name: 'District news', screen_name: 'district_news', managers: { [VK_USER.id]: 'editor' as const } };
/** one they only moderate (cannot post as it) */
export const CHAT = { id: '218000333', name: 'Neighbours chat', screen_name: 'neighbours', managers: { [VK_USER.id]: 'moderator' as const, [OTHER_USER.id]: 'admin' as const } };

export async function vkSimulator(opts: VkSimulatorOptions = {}) {
  const sim = await startVkSimulator(opts);
  sim.addApp({ ...VK_APP });
  sim.addUser(VK_USER);
  sim.addUser(OTHER_USER);
  for (const g of [BAKERY, NEWS, CHAT]) sim.addGroup({ ...g, managers: { ...g.managers } });
  return sim;
}

export const { originsFor, rewriteFor, platformOriginsFor } = simulatorOrigins([VK_ID_ORIGIN, VK_API_ORIGIN, VK_PHOTO_UPLOAD_ORIGIN, VK_VIDEO_UPLOAD_ORIGIN]);

export type TestCtx = MediaTestCtx;
export { published };

/** Runs `fn` against a fresh simulator with an HTTP client mapped to it. */
export const withVk = <T>(opts: VkSimulatorOptions, fn: (sim: VkSimulator, ctx: TestCtx) => Promise<T>): Promise<T> =>
  withMediaSimulator({ start: () => vkSimulator(opts), origins: originsFor, now: opts.now }, fn);

export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A 1×1 PNG whose IDAT differs with `n` (not decodable, but PNG by its signature, as VK checks). */
export function PNG(n: number): Buffer {
  return Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'), Buffer.from([n & 0xff, 1, 2, 3])]);
}

/** The start of an MP4 (an `ftyp` box) and some bytes. */
export function MP4(n: number, size = 64): Buffer {
  const b = Buffer.alloc(size, n & 0xff);
  Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex').copy(b);
  return b;
}

export function image(id: string, opts: { alt?: string } = {}): PublishItem['media'][number] {
  return { id, path: `https://tidings.example/media/${id}.png`, type: 'image', mimeType: 'image/png', size: 70, width: 1, height: 1, alt: opts.alt ?? null };
}

export function video(id: string, size = 64): PublishItem['media'][number] {
  return { id, path: `https://tidings.example/media/${id}.mp4`, type: 'video', mimeType: 'video/mp4', size, duration: 5 };
}

export const publishWith = publisher();
