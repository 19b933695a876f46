import type { Config } from '../config.js';
import { PLATFORM_IDENTIFIERS, type PlatformAdapter, type PlatformIdentifier } from './platform.js';
import { createBlueskyAdapter } from './bluesky/index.js';
import type { OAuthApp } from './common/oauth2.js';
import { createDevtoAdapter } from './devto/index.js';
import { createDiscordAdapter } from './discord/index.js';
import { createDribbbleAdapter } from './dribbble/index.js';
import { createFacebookAdapter } from './facebook/index.js';
import { createHashnodeAdapter } from './hashnode/index.js';
import { createGmbAdapter } from './gmb/index.js';
import { createInstagramAdapter } from './instagram/index.js';
import { createInstagramStandaloneAdapter } from './instagram-standalone/index.js';
import { createKickAdapter } from './kick/index.js';
import { createLemmyAdapter } from './lemmy/index.js';
import { createLinkedinPageAdapter } from './linkedin-page/index.js';
import { createLinkedinAdapter } from './linkedin/index.js';
import { createListmonkAdapter } from './listmonk/index.js';
import { createMastodonAdapter } from './mastodon/index.js';
import { createMediumAdapter } from './medium/index.js';
import { createMeweAdapter } from './mewe/index.js';
import { createMoltbookAdapter } from './moltbook/index.js';
import { createNostrAdapter } from './nostr/index.js';
import { createPinterestAdapter } from './pinterest/index.js';
import { createSkoolAdapter } from './skool/index.js';
import { createSlackAdapter } from './slack/index.js';
import { createRedditAdapter } from './reddit/index.js';
import { createTelegramAdapter } from './telegram/index.js';
import { createThreadsAdapter } from './threads/index.js';
import { createTumblrAdapter } from './tumblr/index.js';
import { createTwitchAdapter } from './twitch/index.js';
import { createTiktokAdapter } from './tiktok/index.js';
import { createVkAdapter } from './vk/index.js';
import { createXAdapter } from './x/index.js';
import { createYoutubeAdapter } from './youtube/index.js';
import { createWhopAdapter } from './whop/index.js';
import { createWordpressAdapter } from './wordpress/index.js';
import { createWrapcastAdapter } from './wrapcast/index.js';

/** What adapters may be given: the OAuth apps of this deployment. */
export interface AdapterConfig {
  apps: Config['platformApps'];
  discordBotToken?: string;
}

/** The deployment's OAuth app of a platform, when both its id and secret are set. */
function appOf(config: AdapterConfig, id: PlatformIdentifier): OAuthApp | undefined {
  const app = config.apps[id];
  return app?.clientId && app.clientSecret ? { clientId: app.clientId, clientSecret: app.clientSecret } : undefined;
}

/** One factory per identifier: a platform without an adapter does not compile. */
type Factories = Record<PlatformIdentifier, (config: AdapterConfig) => PlatformAdapter>;

const FACTORIES: Factories = {
  bluesky: () => createBlueskyAdapter(),
  mastodon: () => createMastodonAdapter(),
  medium: () => createMediumAdapter(),
  listmonk: () => createListmonkAdapter(),
  reddit: (c) => createRedditAdapter({ app: appOf(c, 'reddit') }),
  discord: (c) => createDiscordAdapter({ app: appOf(c, 'discord'), botToken: c.discordBotToken }),
  slack: (c) => createSlackAdapter({ app: appOf(c, 'slack') }),
  linkedin: (c) => createLinkedinAdapter({ app: appOf(c, 'linkedin') }),
  'linkedin-page': (c) => createLinkedinPageAdapter({ app: appOf(c, 'linkedin-page') }),
  telegram: () => createTelegramAdapter(),
  threads: (c) => createThreadsAdapter({ app: appOf(c, 'threads') }),
  tiktok: (c) => createTiktokAdapter({ app: appOf(c, 'tiktok') }),
  x: (c) => createXAdapter({ app: appOf(c, 'x') }),
  facebook: (c) => createFacebookAdapter({ app: appOf(c, 'facebook') }),
  instagram: (c) => createInstagramAdapter({ app: appOf(c, 'instagram') }),
  'instagram-standalone': (c) => createInstagramStandaloneAdapter({ app: appOf(c, 'instagram-standalone') }),
  pinterest: (c) => createPinterestAdapter({ app: appOf(c, 'pinterest') }),
  youtube: (c) => createYoutubeAdapter({ app: appOf(c, 'youtube') }),
  vk: (c) => createVkAdapter({ app: appOf(c, 'vk') }),
  tumblr: (c) => createTumblrAdapter({ app: appOf(c, 'tumblr') }),
  lemmy: () => createLemmyAdapter(),
  gmb: (c) => createGmbAdapter({ app: appOf(c, 'gmb') }),
  dribbble: (c) => createDribbbleAdapter({ app: appOf(c, 'dribbble') }),
  wordpress: () => createWordpressAdapter(),
  devto: () => createDevtoAdapter(),
  hashnode: () => createHashnodeAdapter(),
  skool: () => createSkoolAdapter(),
  mewe: (c) => createMeweAdapter({ app: appOf(c, 'mewe') }),
  moltbook: () => createMoltbookAdapter(),
  whop: (c) => createWhopAdapter({ app: appOf(c, 'whop') }),
  nostr: () => createNostrAdapter(),
  kick: (c) => createKickAdapter({ app: appOf(c, 'kick') }),
  twitch: (c) => createTwitchAdapter({ app: appOf(c, 'twitch') }),
  wrapcast: (c) => createWrapcastAdapter({ app: appOf(c, 'wrapcast') }),
};

/** Every identifier maps to its adapter. */
export function createPlatformRegistry(config: AdapterConfig): Record<PlatformIdentifier, PlatformAdapter> {
  return Object.fromEntries(PLATFORM_IDENTIFIERS.map((id) => [id, FACTORIES[id](config)])) as Record<PlatformIdentifier, PlatformAdapter>;
}

/** Whether the platform can be connected in this version. */
export function isConnectable(adapter: PlatformAdapter): boolean {
  return 'connectWithCredentials' in adapter || 'beginConnect' in adapter;
}
