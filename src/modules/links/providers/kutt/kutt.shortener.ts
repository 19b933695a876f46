import type { PlatformHttp, PlatformResponse } from '../../../../platforms/platform.js';
import { ShortenerError, type Shortener, type ShortenerSettings } from '../provider.js';
import { apiBase, countOf, errorForStatus, isRecord, malformed, mapLimited, send } from '../shortener-http.js';

/**
 * Kutt (v2 API, self-hosted or the public instance): the key in `X-API-KEY`, links made with
 * `POST <apiUrl>/api/v2/links`, clicks read per link from `GET /api/v2/links/<id>/stats`
 * (`visit_count`; Kutt does not count bots), the key checked with `GET /api/v2/users`. There is
 * no batch read by ids (the list pages through every link of the user), so a few links are asked
 * at once.
 *
 * The default is `https://kutt.to`, the project's own instance: its README warns that kutt.it is
 * no longer theirs (a possible phishing site), so no API key is ever sent there by default. An
 * organisation's `apiUrl` is its own server: untrusted, the SSRF guard applies.
 */
const NAME = 'Kutt';
export const KUTT_PUBLIC_URL = 'https://kutt.to';
const CONCURRENCY = 3;

function messageOf(res: PlatformResponse): string {
  const b = res.body;
  if (isRecord(b) && typeof b.error === 'string') return b.error;
  return typeof b === 'string' ? b.slice(0, 200) : '';
}

function kuttError(res: PlatformResponse): ShortenerError {
  const message = messageOf(res);
  // "You can't use this domain." (400): the organisation's domain setting
  if (res.status === 400 && /domain/i.test(message)) return new ShortenerError('rejected', `${NAME} refused the domain: ${message}`, undefined, 'domain');
  return errorForStatus(NAME, res, message);
}

function target(settings: ShortenerSettings) {
  const { base, untrustedHost } = apiBase(NAME, settings.apiUrl, KUTT_PUBLIC_URL);
  // the instance's address, with or without the API's own path
  const api = /\/api\/v2$/.test(base) ? base : `${base}/api/v2`;
  return { api, untrustedHost, headers: { 'x-api-key': settings.apiKey, accept: 'application/json' } };
}

async function get(http: PlatformHttp, settings: ShortenerSettings, path: string) {
  const t = target(settings);
  return send(http, { method: 'GET', url: `${t.api}${path}`, headers: t.headers, untrustedHost: t.untrustedHost }, NAME);
}

/** The short URL of a link: `link` is the URL in Kutt's API document; some versions answer `{ link, url }` there. */
function shortUrlOf(link: unknown): string | undefined {
  if (typeof link === 'string') return link;
  if (isRecord(link) && typeof link.url === 'string') return link.url;
  return undefined;
}

/**
 * A link's `visit_count`: a number in Kutt's API document, but some v3 releases answer it
 * formatted for display ("1,234", `toLocaleString("en-US")`).
 */
function visitCountOf(v: unknown): number | undefined {
  if (typeof v === 'string' && /^\d{1,3}(,\d{3})*$|^\d+$/.test(v)) return Number(v.replace(/,/g, ''));
  return countOf(v);
}

export const kuttShortener: Shortener = {
  provider: 'kutt',
  displayName: 'Kutt',
  needsDomain: false,
  needsApiUrl: false,

  async shorten(http, settings, url) {
    const t = target(settings);
    const res = await send(
      http,
      { method: 'POST', url: `${t.api}/links`, headers: t.headers, body: { target: url, ...(settings.domain ? { domain: settings.domain } : {}) }, untrustedHost: t.untrustedHost },
      NAME,
    );
    if (res.status !== 200 && res.status !== 201) throw kuttError(res);
    const b = res.body;
    const shortUrl = isRecord(b) ? shortUrlOf(b.link) : undefined;
    if (!isRecord(b) || typeof b.id !== 'string' || b.id === '' || !shortUrl) throw malformed(NAME, 'a link');
    // a link on the instance's own domain may come without a scheme
    return { id: b.id, shortUrl: /^https?:\/\//.test(shortUrl) ? shortUrl : `https://${shortUrl}` };
  },

  async clicks(http, settings, ids) {
    const counts = await mapLimited([...new Set(ids)], CONCURRENCY, async (id) => {
      const res = await get(http, settings, `/links/${encodeURIComponent(id)}/stats`);
      // A deleted link: Kutt answers its unhandled "Link could not be found." as a 500 (404 on
      // versions that set the status); an id that is not a UUID, 400.
      const message = messageOf(res);
      if (res.status === 404 || (res.status === 500 && /could not be found/i.test(message)) || (res.status === 400 && /id is invalid/i.test(message))) {
        return undefined;
      }
      if (res.status !== 200) throw errorForStatus(NAME, res, message);
      const clicks = isRecord(res.body) ? visitCountOf(res.body.visit_count) : undefined;
      if (clicks === undefined) throw malformed(NAME, "a link's statistics");
      return [id, clicks] as const;
    });
    return new Map(counts.filter((c) => c !== undefined));
  },

  async verify(http, settings) {
    const res = await get(http, settings, '/users');
    if (res.status !== 200) throw kuttError(res);
    if (!isRecord(res.body) || !Array.isArray(res.body.domains)) throw malformed(NAME, "the user's details");
    const domain = settings.domain?.trim().toLowerCase();
    if (!domain) return;
    const own = res.body.domains.map((d) => (isRecord(d) && typeof d.address === 'string' ? d.address.toLowerCase() : ''));
    // the instance's own domain needs no adding
    const instanceHost = new URL(target(settings).api).hostname.toLowerCase();
    if (domain !== instanceHost && !own.includes(domain)) {
      throw new ShortenerError('rejected', `${NAME}: ${domain} is not one of this account's domains`, undefined, 'domain');
    }
  },
};
