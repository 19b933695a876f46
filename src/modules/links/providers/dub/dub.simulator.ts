import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator } from '../../../../platforms/simulator.js';
import { isHttpUrl, randomCode, rateLimiter, registerRedirects, shortenerParts, type ShortenerSimulator, type SimulatedLink } from '../shortener.simulator.js';

/**
 * A simulator of Dub's API (`https://api.dub.co`) and of its short domains, after Dub's API
 * reference: `Authorization: Bearer <key>`; `POST /links` `{ url, domain? }` → the link object
 * (`id` "link_…", `domain`, `key`, `url`, `shortLink`, `clicks`…); `GET /links/info?linkId=`;
 * `GET /links?pageSize=`; `GET /domains` (the workspace's domains, `[{ id, slug, verified… }]`);
 * `GET /domains/default` (Dub's own domains the workspace may use: `["dub.sh"]`); `GET /analytics`
 * `?event=clicks&groupBy=count&linkId=` → `{ clicks }`. Errors are `{ error: { code, message,
 * doc_url } }`: 401 unauthorized, 403 forbidden ("Domain does not belong to workspace."),
 * 404 not_found, 422 unprocessable_entity, 429 rate_limit_exceeded (with `X-RateLimit-Limit`,
 * `X-RateLimit-Remaining`, `X-RateLimit-Reset` in epoch seconds, and `Retry-After`), 500
 * internal_server_error. A short link `GET /<key>` redirects 302 to its URL; bots are not counted.
 *
 * See `shortener.simulator.ts` for the API every shortener simulator offers tests.
 */
export const DUB_API_ORIGIN = 'https://api.dub.co';
export const DUB_DEFAULT_DOMAIN = 'dub.sh';

export interface DubSimulatorOptions {
  /** API keys of the workspace (default `['dub_test_key']`) */
  apiKeys?: string[];
  /** the workspace's own domains (default `['go.example.com']`) */
  domains?: string[];
  /** requests per minute per key (default 60, the Free plan's limit) */
  rateLimit?: number;
}

export type DubSimulator = ShortenerSimulator;

const DOC = 'https://dub.co/docs/api-reference/errors#';
const dubError = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply.status(status).send({ error: { code, message, doc_url: `${DOC}${code.replace(/_/g, '-')}` } });

export async function startDubSimulator(opts: DubSimulatorOptions = {}): Promise<DubSimulator> {
  const keys = new Set(opts.apiKeys ?? ['dub_test_key']);
  const workspaceDomains = opts.domains ?? ['go.example.com'];
  const links: SimulatedLink[] = [];
  const limit = rateLimiter(opts.rateLimit ?? 60, 60_000);

  const linkObject = (l: SimulatedLink) => ({
    id: l.id,
    domain: l.domain,
    key: l.path,
    url: l.target,
    shortLink: l.shortUrl,
    qrCode: `https://api.dub.co/qr?url=${encodeURIComponent(l.shortUrl)}`,
    archived: false,
    clicks: l.clicks,
    leads: 0,
    sales: 0,
    createdAt: l.createdAt,
    updatedAt: l.createdAt,
  });

  /** The key check and the rate limit every API route starts with; true when it answered. */
  function guard(req: FastifyRequest, reply: FastifyReply): boolean {
    const auth = req.headers.authorization ?? '';
    const key = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    if (!keys.has(key)) {
      void dubError(reply, 401, 'unauthorized', 'Unauthorized: Invalid API key.');
      return true;
    }
    return limit(
      key,
      reply,
      (left, resetAt) => ({ 'x-ratelimit-limit': String(opts.rateLimit ?? 60), 'x-ratelimit-remaining': String(left), 'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)) }),
      () => ({ error: { code: 'rate_limit_exceeded', message: 'Too many requests.', doc_url: `${DOC}rate-limit-exceeded` } }),
    );
  }

  const sim = await startSimulator((app) => {
    app.post('/links', async (req, reply) => {
      if (guard(req, reply)) return reply;
      const body = (req.body ?? {}) as { url?: unknown; domain?: unknown };
      if (body.url === undefined) return dubError(reply, 400, 'bad_request', 'url: Required');
      if (!isHttpUrl(body.url)) return dubError(reply, 422, 'unprocessable_entity', 'Invalid destination URL');
      if (body.domain !== undefined && body.domain !== null && typeof body.domain !== 'string') return dubError(reply, 422, 'unprocessable_entity', 'domain: Expected string');
      const domain = typeof body.domain === 'string' ? body.domain : DUB_DEFAULT_DOMAIN;
      if (domain !== DUB_DEFAULT_DOMAIN && !workspaceDomains.includes(domain)) {
        return dubError(reply, 403, 'forbidden', 'Domain does not belong to workspace.');
      }
      let key = randomCode(7);
      while (links.some((l) => l.path === key)) key = randomCode(7);
      const link: SimulatedLink = {
        id: `link_${randomBytes(13).toString('hex').toUpperCase()}`,
        domain,
        path: key,
        target: body.url,
        shortUrl: `https://${domain}/${key}`,
        clicks: 0,
        botClicks: 0,
        createdAt: new Date().toISOString(),
      };
      links.push(link);
      return reply.status(200).send(linkObject(link));
    });

    app.get<{ Querystring: { linkId?: string } }>('/links/info', async (req, reply) => {
      if (guard(req, reply)) return reply;
      const link = links.find((l) => l.id === req.query.linkId);
      if (!link) return dubError(reply, 404, 'not_found', 'Link not found.');
      return linkObject(link);
    });

    app.get<{ Querystring: { pageSize?: string } }>('/links', async (req, reply) => {
      if (guard(req, reply)) return reply;
      const size = Math.min(100, Number(req.query.pageSize ?? 100) || 100);
      return links.slice(0, size).map(linkObject);
    });

    app.get<{ Querystring: { search?: string } }>('/domains', async (req, reply) => {
      if (guard(req, reply)) return reply;
      const search = req.query.search;
      return workspaceDomains
        .filter((d) => !search || d.includes(search))
        .map((slug, i) => ({ id: `dom_${i + 1}`, slug, verified: true, primary: i === 0, archived: false }));
    });

    app.get('/domains/default', async (req, reply) => {
      if (guard(req, reply)) return reply;
      return [DUB_DEFAULT_DOMAIN];
    });

    app.get<{ Querystring: { event?: string; groupBy?: string; linkId?: string } }>('/analytics', async (req, reply) => {
      if (guard(req, reply)) return reply;
      const link = links.find((l) => l.id === req.query.linkId);
      if (req.query.linkId && !link) return dubError(reply, 404, 'not_found', 'Link not found.');
      return { clicks: link ? link.clicks : links.reduce((n, l) => n + l.clicks, 0) };
    });

    registerRedirects(app, links, 302);
  });

  return Object.assign(sim, {
    ...shortenerParts(sim, links, {
      serverError: () => ({ error: { code: 'internal_server_error', message: 'An internal server error occurred.', doc_url: `${DOC}internal-server-error` } }),
      malformed: () => ({ ok: true }),
    }),
  });
}
