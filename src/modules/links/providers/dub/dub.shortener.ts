import type { PlatformHttp, PlatformResponse } from '../../../../platforms/platform.js';
import { ShortenerError, type Shortener, type ShortenerSettings } from '../provider.js';
import { apiBase, countOf, errorForStatus, isRecord, malformed, mapLimited, send } from '../shortener-http.js';

/**
 * Dub (https://dub.co/docs/api-reference): `Authorization: Bearer <key>`, links made with
 * `POST /links`, clicks read from `GET /links/info?linkId=` (the link's `clicks`). The analytics
 * endpoint (`/analytics?event=clicks&groupBy=count`) would also do, but needs a Pro plan; the
 * link's own count works on every plan. There is no batch read by ids, so clicks are asked per
 * link, a few at once (the Free plan allows 60 requests a minute). A self-hosted Dub is reached
 * through `apiUrl`.
 */
const NAME = 'Dub';
const PUBLIC_API = 'https://api.dub.co';
/** links whose clicks are read at once */
const CONCURRENCY = 3;

function messageOf(res: PlatformResponse): string {
  const b = res.body;
  if (isRecord(b) && isRecord(b.error) && typeof b.error.message === 'string') return b.error.message;
  return typeof b === 'string' ? b.slice(0, 200) : '';
}

function dubError(res: PlatformResponse): ShortenerError {
  const message = messageOf(res);
  // Dub answers 403 "forbidden" both for a key without the scope and for a domain that is not the
  // workspace's ("Domain does not belong to workspace."): the second is the request, not the key.
  if (res.status === 403 && /domain/i.test(message)) return new ShortenerError('rejected', `${NAME} refused the domain: ${message}`, undefined, 'domain');
  return errorForStatus(NAME, res, message);
}

function target(settings: ShortenerSettings) {
  const { base, untrustedHost } = apiBase(NAME, settings.apiUrl, PUBLIC_API);
  return { base, untrustedHost, headers: { authorization: `Bearer ${settings.apiKey}`, accept: 'application/json' } };
}

async function get(http: PlatformHttp, settings: ShortenerSettings, path: string): Promise<PlatformResponse> {
  const t = target(settings);
  return send(http, { method: 'GET', url: `${t.base}${path}`, headers: t.headers, untrustedHost: t.untrustedHost }, NAME);
}

export const dubShortener: Shortener = {
  provider: 'dub',
  displayName: 'Dub',
  needsDomain: false,
  needsApiUrl: false,

  async shorten(http, settings, url) {
    const t = target(settings);
    const res = await send(
      http,
      { method: 'POST', url: `${t.base}/links`, headers: t.headers, body: { url, ...(settings.domain ? { domain: settings.domain } : {}) }, untrustedHost: t.untrustedHost },
      NAME,
    );
    if (res.status !== 200 && res.status !== 201) throw dubError(res);
    const b = res.body;
    if (!isRecord(b) || typeof b.id !== 'string' || b.id === '' || typeof b.shortLink !== 'string' || !/^https?:\/\//.test(b.shortLink)) {
      throw malformed(NAME, 'a link');
    }
    return { id: b.id, shortUrl: b.shortLink };
  },

  async clicks(http, settings, ids) {
    const counts = await mapLimited([...new Set(ids)], CONCURRENCY, async (id) => {
      const res = await get(http, settings, `/links/info?linkId=${encodeURIComponent(id)}`);
      if (res.status === 404) return undefined; // deleted on Dub's side
      if (res.status !== 200) throw dubError(res);
      const clicks = isRecord(res.body) ? countOf(res.body.clicks) : undefined;
      if (clicks === undefined) throw malformed(NAME, "a link with its clicks");
      return [id, clicks] as const;
    });
    return new Map(counts.filter((c) => c !== undefined));
  },

  async verify(http, settings) {
    const domain = settings.domain?.trim().toLowerCase() || null;
    // One request checks the key (and, with a domain, looks for it among the workspace's own).
    const res = await get(http, settings, domain ? `/domains?search=${encodeURIComponent(domain)}&pageSize=50` : '/domains?pageSize=1');
    if (res.status !== 200) throw dubError(res);
    if (!Array.isArray(res.body)) throw malformed(NAME, 'a list of domains');
    if (!domain) return;
    if (res.body.some((d) => isRecord(d) && typeof d.slug === 'string' && d.slug.toLowerCase() === domain)) return;
    // Dub's own short domains (dub.sh…) are not the workspace's but every workspace may use them.
    const defaults = await get(http, settings, '/domains/default');
    if (defaults.status !== 200) throw dubError(defaults);
    if (!Array.isArray(defaults.body)) throw malformed(NAME, 'a list of domains');
    const slugs = defaults.body.map((d) => (typeof d === 'string' ? d : isRecord(d) && typeof d.slug === 'string' ? d.slug : '')).map((s) => s.toLowerCase());
    if (!slugs.includes(domain)) throw new ShortenerError('rejected', `${NAME}: ${domain} is not one of this workspace's domains`, undefined, 'domain');
  },
};
