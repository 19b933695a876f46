/**
 * Who fetches a short link without being a person clicking it: search and social crawlers, the
 * link-preview fetchers of the platforms we post to (they open every link of a new post), chat
 * apps' unfurlers, uptime and command-line tools. Their visits are counted apart from clicks.
 */
const CRAWLER = new RegExp(
  [
    'bot\\b', 'bot/', 'crawler', 'spider', 'slurp', 'preview', 'fetcher', 'scraper', 'externalhit', 'facebookcatalog',
    'twitterbot', 'linkedinbot', 'slackbot', 'discordbot', 'telegrambot', 'whatsapp', 'skypeuripreview', 'embedly',
    'iframely', 'pinterest', 'redditbot', 'applebot', 'bingpreview', 'googleother', 'google-inspectiontool', 'mastodon/',
    'pleroma', 'akkoma', 'misskey', 'bluesky', 'cardyb', 'threads', 'snapchat', 'vkshare', 'tumblr', 'nuzzel', 'quora link',
    'outbrain', 'flipboard', 'headless', 'lighthouse', 'curl/', 'wget/', 'python-requests', 'python-urllib', 'go-http-client',
    'okhttp', 'node-fetch', 'undici', 'axios/', 'java/', 'libwww', 'httpclient', 'uptime', 'monitor', 'pingdom', 'statuscake',
  ].join('|'),
  'i',
);

/** Whether a request with this User-Agent is a machine's (none at all counts as one). */
export function isCrawler(userAgent: string | undefined): boolean {
  if (!userAgent || userAgent.trim() === '') return true;
  return CRAWLER.test(userAgent);
}
