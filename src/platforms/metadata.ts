import type { PlatformIdentifier, PlatformMetadata } from './platform.js';
import { blueskyMetadata } from './bluesky/metadata.js';
import { devtoMetadata } from './devto/metadata.js';
import { discordMetadata } from './discord/metadata.js';
import { dribbbleMetadata } from './dribbble/metadata.js';
import { facebookMetadata } from './facebook/metadata.js';
import { gmbMetadata } from './gmb/metadata.js';
import { hashnodeMetadata } from './hashnode/metadata.js';
import { instagramMetadata } from './instagram/metadata.js';
import { instagramStandaloneMetadata } from './instagram-standalone/metadata.js';
import { kickMetadata } from './kick/metadata.js';
import { lemmyMetadata } from './lemmy/metadata.js';
import { linkedinMetadata } from './linkedin/metadata.js';
import { linkedinPageMetadata } from './linkedin-page/metadata.js';
import { listmonkMetadata } from './listmonk/metadata.js';
import { mastodonMetadata } from './mastodon/metadata.js';
import { mediumMetadata } from './medium/metadata.js';
import { meweMetadata } from './mewe/metadata.js';
import { moltbookMetadata } from './moltbook/metadata.js';
import { nostrMetadata } from './nostr/metadata.js';
import { pinterestMetadata } from './pinterest/metadata.js';
import { redditMetadata } from './reddit/metadata.js';
import { skoolMetadata } from './skool/metadata.js';
import { slackMetadata } from './slack/metadata.js';
import { telegramMetadata } from './telegram/metadata.js';
import { threadsMetadata } from './threads/metadata.js';
import { tiktokMetadata } from './tiktok/metadata.js';
import { tumblrMetadata } from './tumblr/metadata.js';
import { twitchMetadata } from './twitch/metadata.js';
import { vkMetadata } from './vk/metadata.js';
import { whopMetadata } from './whop/metadata.js';
import { wordpressMetadata } from './wordpress/metadata.js';
import { wrapcastMetadata } from './wrapcast/metadata.js';
import { xMetadata } from './x/metadata.js';
import { youtubeMetadata } from './youtube/metadata.js';

/**
 * The metadata of every platform. A `Record` over the identifier union: a platform missing here
 * does not compile. Post validation, `/integration-settings` and the publisher read it.
 */
export const PLATFORM_METADATA: Record<PlatformIdentifier, PlatformMetadata> = {
  bluesky: blueskyMetadata,
  devto: devtoMetadata,
  discord: discordMetadata,
  dribbble: dribbbleMetadata,
  facebook: facebookMetadata,
  gmb: gmbMetadata,
  hashnode: hashnodeMetadata,
  instagram: instagramMetadata,
  'instagram-standalone': instagramStandaloneMetadata,
  kick: kickMetadata,
  lemmy: lemmyMetadata,
  linkedin: linkedinMetadata,
  'linkedin-page': linkedinPageMetadata,
  listmonk: listmonkMetadata,
  mastodon: mastodonMetadata,
  medium: mediumMetadata,
  mewe: meweMetadata,
  moltbook: moltbookMetadata,
  nostr: nostrMetadata,
  pinterest: pinterestMetadata,
  reddit: redditMetadata,
  skool: skoolMetadata,
  slack: slackMetadata,
  telegram: telegramMetadata,
  threads: threadsMetadata,
  tiktok: tiktokMetadata,
  tumblr: tumblrMetadata,
  twitch: twitchMetadata,
  vk: vkMetadata,
  whop: whopMetadata,
  wordpress: wordpressMetadata,
  wrapcast: wrapcastMetadata,
  x: xMetadata,
  youtube: youtubeMetadata,
};
