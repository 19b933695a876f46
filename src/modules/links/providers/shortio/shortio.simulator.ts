import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator } from '../../../../platforms/simulator.js';
import { isHttpUrl, randomCode, rateLimiter, registerRedirects, shortenerParts, type ShortenerSimulator, type SimulatedLink } from '../shortener.simulator.js';

/**
 * A simulator of Short.io's two API hosts and its short domains (one server; tests map both real
 * origins to it), after developers.short.io: the secret key goes in `authorization` as is (no
 * "Bearer"); `POST /links` on `https://api.short.io` takes `{ domain, originalURL, path? }` and
 * answers the link (`idString` "lnk_…", numeric `id`, `path`, `originalURL`, `shortURL`,
 * `secureShortURL`…); `GET /api/domains` lists the account's domains (`[{ id, hostname… }]`);
 * `GET /statistics/link/<idString>?period=total` on `https://statistics.short.io` answers
 * `{ totalClicks, humanClicks, … }`. Short.io counts every visit in `totalClicks` and people
 * apart in `humanClicks`. A short link `GET /<path>` redirects 302.
 *
 * Short.io's reference documents the status codes but hardly the error bodies: they are
 * imitated here as Short.io's API (Fastify) answers, `{ statusCode, error, message }`;
 * a 429 carries `Retry-After`. See `shortener.simulator.ts` for the API tests use.
 */
export const SHORTIO_API_ORIGIN = 'https://api.short.io';
export const SHORTIO_STATISTICS_ORIGIN = 'https://statistics.short.io';

export interface ShortioSimulatorOptions {
  /** secret API keys of the account (default `['sk_test_key']`) */
  apiKeys?: string[];
  /** the account's domains (default `['short.example.com']`) */
  domains?: string[];
  /** requests per key in a window of `rateWindowMs` (default 20) */
  rateLimit?: number;
  /** the rate window (default 1000: Short.io limits requests per second) */
  rateWindowMs?: number;
}

export type ShortioSimulator = ShortenerSimulator;

const fail = (reply: FastifyReply, statusCode: number, error: string, message: string) => reply.status(statusCode).send({ statusCode, error, message });

export async function startShortioSimulator(opts: ShortioSimulatorOptions = {}): Promise<ShortioSimulator> {
  const keys = new Set(opts.apiKeys ?? ['sk_test_key']);
  const domains = (opts.domains ?? ['short.example.com']).map((hostname, i) => ({ id: 100_000 + i, hostname }));
  const links: SimulatedLink[] = [];
  const limit = rateLimiter(opts.rateLimit ?? 20, opts.rateWindowMs ?? 1_000);
  let nextId = 1_000_000;

  function guard(req: FastifyRequest, reply: FastifyReply): boolean {
    const key = req.headers.authorization ?? '';
    if (!keys.has(key)) {
      void fail(reply, 401, 'Unauthorized', 'Unauthorized');
      return true;
    }
    return limit(key, reply, () => ({}), () => ({ statusCode: 429, error: 'Too Many Requests', message: 'Rate limit exceeded, retry later' }));
  }

  const sim = await startSimulator((app) => {
    app.post('/links', async (req, reply) => {
      if (guard(req, reply)) return reply;
      const body = (req.body ?? {}) as { domain?: unknown; originalURL?: unknown; path?: unknown };
      if (typeof body.domain !== 'string' || body.domain === '') return fail(reply, 400, 'Bad Request', "body must have required property 'domain'");
      if (!isHttpUrl(body.originalURL)) return fail(reply, 400, 'Bad Request', 'originalURL is not a valid URL');
      const domain = domains.find((d) => d.hostname === body.domain);
      if (!domain) return fail(reply, 404, 'Not Found', 'Domain not found');
      const path = typeof body.path === 'string' && body.path !== '' ? body.path : randomCode(6);
      if (links.some((l) => l.domain === domain.hostname && l.path === path)) return fail(reply, 409, 'Conflict', 'Link already exists');
      const link: SimulatedLink = {
        id: `lnk_${randomCode(4)}_${randomBytes(9).toString('base64url')}`,
        domain: domain.hostname,
        path,
        target: body.originalURL,
        shortUrl: `https://${domain.hostname}/${path}`,
        clicks: 0,
        botClicks: 0,
        createdAt: new Date().toISOString(),
      };
      links.push(link);
      return reply.status(200).send({
        id: nextId++,
        idString: link.id,
        path,
        title: null,
        originalURL: link.target,
        DomainId: domain.id,
        shortURL: link.shortUrl,
        secureShortURL: link.shortUrl,
        duplicate: false,
        createdAt: link.createdAt,
        updatedAt: link.createdAt,
      });
    });

    app.get('/api/domains', async (req, reply) => {
      if (guard(req, reply)) return reply;
      return domains.map((d) => ({ id: d.id, hostname: d.hostname, state: 'configured', linkType: 'random', httpsLinks: true }));
    });

    app.get<{ Params: { id: string }; Querystring: { period?: string } }>('/statistics/link/:id', async (req, reply) => {
      if (guard(req, reply)) return reply;
      const link = links.find((l) => l.id === req.params.id);
      if (!link) return fail(reply, 404, 'Not Found', 'Link not found');
      return {
        totalClicks: link.clicks + link.botClicks,
        humanClicks: link.clicks,
        totalClicksChange: '0',
        humanClicksChange: '0',
        interval: { startDate: link.createdAt, endDate: new Date().toISOString(), prevStartDate: null, prevEndDate: null, tz: 'UTC' },
      };
    });

    registerRedirects(app, links, 302);
  });

  return Object.assign(sim, {
    ...shortenerParts(sim, links, {
      serverError: () => ({ statusCode: 500, error: 'Internal Server Error', message: 'An internal server error occurred' }),
      malformed: () => ({ success: true }),
    }),
  });
}
