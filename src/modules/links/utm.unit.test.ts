import { describe, expect, it } from 'vitest';
import { applyUtm, checkUtmTemplate } from './utm.js';
import { isCrawler } from './crawlers.js';

const vars = { platform: 'x', channel: 'Acme & Co', group: 'g1', post: 'p1', date: '2026-11-30' };

describe('UTM templates', () => {
  it('fills the placeholders, encodes the values and keeps what the URL has', () => {
    expect(applyUtm('https://example.com/a?utm_medium=email#top', 'utm_source={platform}&utm_medium=social&utm_campaign={channel} {date}', vars)).toBe(
      'https://example.com/a?utm_medium=email&utm_source=x&utm_campaign=Acme+%26+Co+2026-11-30#top',
    );
    expect(applyUtm('https://example.com/', null, vars)).toBe('https://example.com/');
  });

  it('refuses templates it could not apply, saying why', () => {
    expect(checkUtmTemplate('utm_source={platform}&utm_campaign={group}')).toBeUndefined();
    expect(checkUtmTemplate('?utm_source=x')).toBeUndefined();
    expect(checkUtmTemplate('utm_source')).toMatch(/not a name=value pair/);
    expect(checkUtmTemplate('utm_source={network}')).toMatch(/\{network\} is not a placeholder/);
    expect(checkUtmTemplate('utm source=x')).toMatch(/not a parameter name/);
    expect(checkUtmTemplate('utm_source={platform')).toMatch(/unmatched brace/);
  });
});

describe('crawlers', () => {
  it('tells link previews and tools from people', () => {
    for (const ua of ['Twitterbot/1.0', 'facebookexternalhit/1.1', 'LinkedInBot/1.0 (compatible; Mozilla/5.0)', 'Mozilla/5.0 (compatible; Discordbot/2.0)', 'TelegramBot (like TwitterBot)', 'Slackbot-LinkExpanding 1.0', 'http.rb/5.1 (Mastodon/4.3.0; +https://mastodon.social/)', 'Bluesky Cardyb/1.1', 'curl/8.5.0', undefined, ''])
      expect(isCrawler(ua), String(ua)).toBe(true);
    for (const ua of ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1'])
      expect(isCrawler(ua), ua).toBe(false);
  });
});
