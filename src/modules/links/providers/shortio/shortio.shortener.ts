import type { PlatformHttp, PlatformResponse } from '../../../../platforms/platform.js';
import { ShortenerError, type Shortener, type ShortenerSettings } from '../provider.js';
import { countOf, errorForStatus, isRecord, malformed, mapLimited, send } from '../shortener-http.js';

/**
 * Short.io (https://developers.short.io): the secret key in `authorization` as is (no "Bearer"),
 * links made on one of the account's domains with `POST https://api.short.io/links`, clicks read
 * per link from `GET https://statistics.short.io/statistics/link/<idString>?period=total`
 * (`humanClicks`: Short.io counts bots in `totalClicks` only, and Tidings counts people). No batch
 * read by link ids is documented for the statistics host, so a few links are asked at once.
 * Short.io is a hosted service only: `apiUrl` is not used.
 */
const NAME = 'Short.io';
const API = 'https://api.short.io';
const STATISTICS = 'https://statistics.short.io';
const CONCURRENCY = 3;

function messageOf(res: PlatformResponse): string {
  const b = res.body;
  if (isRecord(b)) {
    if (typeof b.message === 'string') return b.message;
    if (typeof b.error === 'string') return b.error;
  }
  return typeof b === 'string' ? b.slice(0, 200) : '';
}

function shortioError(res: PlatformResponse): ShortenerError {
  const message = messageOf(res);
  // An unknown domain is the organisation's setting, whatever status it comes with.
  if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 429 && /domain/i.test(message)) {
    return new ShortenerError('rejected', `${NAME} refused the domain: ${message}`, undefined, 'domain');
  }
  return errorForStatus(NAME, res, message);
}

const headers = (settings: ShortenerSettings) => ({ authorization: settings.apiKey, accept: 'application/json' });

function domainOf(settings: ShortenerSettings): string {
  const domain = settings.domain?.trim().toLowerCase();
  if (!domain) throw new ShortenerError('rejected', `${NAME} needs a short domain: links are made on one of the account's domains`, undefined, 'domain');
  return domain;
}

async function get(http: PlatformHttp, settings: ShortenerSettings, url: string) {
  return send(http, { method: 'GET', url, headers: headers(settings) }, NAME);
}

export const shortioShortener: Shortener = {
  provider: 'shortio',
  displayName: 'Short.io',
  needsDomain: true,
  needsApiUrl: false,

  async shorten(http, settings, url) {
    const domain = domainOf(settings);
    const res = await send(http, { method: 'POST', url: `${API}/links`, headers: headers(settings), body: { domain, originalURL: url } }, NAME);
    if (res.status !== 200 && res.status !== 201) throw shortioError(res);
    const b = res.body;
    if (!isRecord(b) || typeof b.idString !== 'string' || b.idString === '') throw malformed(NAME, 'a link');
    const shortUrl = typeof b.secureShortURL === 'string' ? b.secureShortURL : b.shortURL;
    if (typeof shortUrl !== 'string' || !/^https?:\/\//.test(shortUrl)) throw malformed(NAME, 'a link');
    return { id: b.idString, shortUrl };
  },

  async clicks(http, settings, ids) {
    const counts = await mapLimited([...new Set(ids)], CONCURRENCY, async (id) => {
      const res = await get(http, settings, `${STATISTICS}/statistics/link/${encodeURIComponent(id)}?period=total&tz=UTC`);
      if (res.status === 404) return undefined; // deleted on Short.io's side
      if (res.status !== 200) throw shortioError(res);
      const clicks = isRecord(res.body) ? countOf(res.body.humanClicks) : undefined;
      if (clicks === undefined) throw malformed(NAME, "a link's statistics");
      return [id, clicks] as const;
    });
    return new Map(counts.filter((c) => c !== undefined));
  },

  async verify(http, settings) {
    const domain = domainOf(settings);
    const res = await get(http, settings, `${API}/api/domains`);
    if (res.status !== 200) throw shortioError(res);
    if (!Array.isArray(res.body)) throw malformed(NAME, 'a list of domains');
    const hostnames = res.body.map((d) => (isRecord(d) && typeof d.hostname === 'string' ? d.hostname.toLowerCase() : ''));
    if (!hostnames.includes(domain)) {
      const known = hostnames.filter(Boolean);
      throw new ShortenerError('rejected', `${NAME}: ${domain} is not one of this account's domains${known.length ? ` (${known.join(', ')})` : ''}`, undefined, 'domain');
    }
  },
};
