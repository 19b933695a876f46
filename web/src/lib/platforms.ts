import type { PlatformIdentifier } from '../api/queries.js';

/** How each platform is named in the app (identifiers are the API's). */
export const PLATFORM_NAMES: Record<PlatformIdentifier, string> = {
  bluesky: 'Bluesky',
  devto: 'DEV',
  discord: 'Discord',
  dribbble: 'Dribbble',
  facebook: 'Facebook Page',
  gmb: 'Google Business Profile',
  hashnode: 'Hashnode',
  instagram: 'Instagram (Facebook login)',
  'instagram-standalone': 'Instagram',
  kick: 'Kick',
  lemmy: 'Lemmy',
  linkedin: 'LinkedIn',
  'linkedin-page': 'LinkedIn Page',
  listmonk: 'Listmonk',
  mastodon: 'Mastodon',
  medium: 'Medium',
  mewe: 'MeWe',
  moltbook: 'Moltbook',
  nostr: 'Nostr',
  pinterest: 'Pinterest',
  reddit: 'Reddit',
  skool: 'Skool',
  slack: 'Slack',
  telegram: 'Telegram',
  threads: 'Threads',
  tiktok: 'TikTok',
  tumblr: 'Tumblr',
  twitch: 'Twitch',
  vk: 'VK',
  whop: 'Whop',
  wordpress: 'WordPress',
  wrapcast: 'Farcaster',
  x: 'X',
  youtube: 'YouTube',
};

export function platformName(identifier: string): string {
  return (PLATFORM_NAMES as Record<string, string>)[identifier] ?? identifier;
}
