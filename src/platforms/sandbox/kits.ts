import type { PlatformIdentifier } from '../platform.js';
import type { SandboxKit } from './kit.js';

/**
 * Each platform's sandbox kit (`platforms/<id>/sandbox.ts`), loaded on first use: a deployment
 * that never connects a sandbox channel loads no simulator.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kit has its own simulator type
type AnyKit = SandboxKit<any>;
const load = async (m: Promise<{ default: AnyKit }>) => (await m).default;

export const SANDBOX_KITS: Partial<Record<PlatformIdentifier, () => Promise<AnyKit>>> = {
  medium: () => load(import('../medium/sandbox.js')),
  hashnode: () => load(import('../hashnode/sandbox.js')),
  devto: () => load(import('../devto/sandbox.js')),
  listmonk: () => load(import('../listmonk/sandbox.js')),
  wordpress: () => load(import('../wordpress/sandbox.js')),
  nostr: () => load(import('../nostr/sandbox.js')),
  lemmy: () => load(import('../lemmy/sandbox.js')),
  mastodon: () => load(import('../mastodon/sandbox.js')),
  bluesky: () => load(import('../bluesky/sandbox.js')),
  facebook: () => load(import('../facebook/sandbox.js')),
  gmb: () => load(import('../gmb/sandbox.js')),
  instagram: () => load(import('../instagram/sandbox.js')),
  'instagram-standalone': () => load(import('../instagram-standalone/sandbox.js')),
  linkedin: () => load(import('../linkedin/sandbox.js')),
  'linkedin-page': () => load(import('../linkedin-page/sandbox.js')),
  reddit: () => load(import('../reddit/sandbox.js')),
  telegram: () => load(import('../telegram/sandbox.js')),
  threads: () => load(import('../threads/sandbox.js')),
  x: () => load(import('../x/sandbox.js')),
  youtube: () => load(import('../youtube/sandbox.js')),
  twitch: () => load(import('../twitch/sandbox.js')),
  kick: () => load(import('../kick/sandbox.js')),
  whop: () => load(import('../whop/sandbox.js')),
  skool: () => load(import('../skool/sandbox.js')),
  mewe: () => load(import('../mewe/sandbox.js')),
  moltbook: () => load(import('../moltbook/sandbox.js')),
  wrapcast: () => load(import('../wrapcast/sandbox.js')),
  pinterest: () => load(import('../pinterest/sandbox.js')),
  tiktok: () => load(import('../tiktok/sandbox.js')),
  tumblr: () => load(import('../tumblr/sandbox.js')),
  vk: () => load(import('../vk/sandbox.js')),
  dribbble: () => load(import('../dribbble/sandbox.js')),
  discord: () => load(import('../discord/sandbox.js')),
  slack: () => load(import('../slack/sandbox.js')),
};
