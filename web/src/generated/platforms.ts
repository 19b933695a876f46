// Written by `npm run platforms:web` from the platforms' metadata (src/platforms/*/metadata.ts): do not edit.

/** How each platform is named in the app (`appName`, else `displayName`), in identifier order. */
export const GENERATED_PLATFORM_NAMES = {
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
} as const;

/** The tool (`POST /integration-trigger/{id}`) listing the accounts a channel may post as, and the word for one. */
export const GENERATED_ACCOUNT_TOOLS = {
  facebook: { methodName: 'pages', noun: 'Page' },
  gmb: { methodName: 'locations', noun: 'location' },
  instagram: { methodName: 'accounts', noun: 'account' },
  'linkedin-page': { methodName: 'pages', noun: 'page' },
  tumblr: { methodName: 'blogs', noun: 'blog' },
  youtube: { methodName: 'channels', noun: 'YouTube channel' },
} as const;
