import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator } from '../../../../platforms/simulator.js';
import { isHttpUrl, randomCode, rateLimiter, registerRedirects, shortenerParts, type ShortenerSimulator, type SimulatedLink } from '../shortener.simulator.js';

/**
 * A simulator of a Kutt instance (v2 API, after Kutt's OpenAPI document `docs/api/api.js` and its
 * handlers): the key in `X-API-KEY`; `POST /api/v2/links` `{ target, domain?, … }` → 201 the link
 * (`id` a UUID, `address`, `target`, `link` the short URL, `visit_count`, `banned`, `password`…);
 * `GET /api/v2/links/<id>/stats` → the link with `lastDay`/`lastWeek`/… and `visit_count`;
 * `GET /api/v2/users` → `{ email, domains: [{ address… }] }`; `GET /api/v2/health` → "OK". Every
 * error is `{ error: "<message>" }`: a wrong key 401 "Unauthorized.", a validation failure 400
 * (`You can't use this domain.`), a stats request for an unknown link Kutt's unhandled 500 ("Link
 * could not be found."), and the express-rate-limit 429 (`X-RateLimit-*`, `Retry-After`). A short
 * link `GET /<address>` redirects 302; visits by bots are not counted (Kutt uses `isbot`).
 *
 * See `shortener.simulator.ts` for the API tests use.
 */
export interface KuttSimulatorOptions {
  /** API keys of the instance's users (default `['kutt_test_key']`) */
  apiKeys?: string[];
  /** the instance's own domain (Kutt's DEFAULT_DOMAIN), where links go without a `domain` (default `kutt.example.org`) */
  defaultDomain?: string;
  /** custom domains the user has added (default `['k.example.com']`) */
  domains?: string[];
  /** API requests per minute per client (default 100) */
  rateLimit?: number;
}

export type KuttSimulator = ShortenerSimulator;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const fail = (reply: FastifyReply, status: number, error: string) => reply.status(status).send({ error });

export async function startKuttSimulator(opts: KuttSimulatorOptions = {}): Promise<KuttSimulator> {
  const keys = new Set(opts.apiKeys ?? ['kutt_test_key']);
  const defaultDomain = opts.defaultDomain ?? 'kutt.example.org';
  const customDomains = opts.domains ?? ['k.example.com'];
  const links: SimulatedLink[] = [];
  const max = opts.rateLimit ?? 100;
  const limit = rateLimiter(max, 60_000);

  const linkObject = (l: SimulatedLink) => ({
    id: l.id,
    address: l.path,
    banned: false,
    created_at: l.createdAt,
    updated_at: l.createdAt,
    description: null,
    expire_in: null,
    password: false,
    target: l.target,
    visit_count: l.clicks,
    link: l.shortUrl,
  });

  function guard(req: FastifyRequest, reply: FastifyReply): boolean {
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string' || !keys.has(key)) {
      void fail(reply, 401, 'Unauthorized.');
      return true;
    }
    return limit(
      key,
      reply,
      (left, resetAt) => ({ 'x-ratelimit-limit': String(max), 'x-ratelimit-remaining': String(left), 'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)) }),
      () => ({ error: 'Too many requests, please try again later.' }),
    );
  }

  const sim = await startSimulator((app) => {
    app.get('/api/v2/health', async () => 'OK');

    app.post('/api/v2/links', async (req, reply) => {
      if (guard(req, reply)) return reply;
      const body = (req.body ?? {}) as { target?: unknown; domain?: unknown };
      if (typeof body.target !== 'string' || body.target === '') return fail(reply, 400, 'Target is missing.');
      if (!isHttpUrl(body.target)) return fail(reply, 400, 'URL is not valid.');
      const domain = typeof body.domain === 'string' && body.domain !== '' ? body.domain : defaultDomain;
      if (domain !== defaultDomain && !customDomains.includes(domain)) return fail(reply, 400, "You can't use this domain.");
      let address = randomCode(6);
      while (links.some((l) => l.path === address)) address = randomCode(6);
      const link: SimulatedLink = {
        id: randomUUID(),
        domain,
        path: address,
        target: body.target,
        shortUrl: `https://${domain}/${address}`,
        clicks: 0,
        botClicks: 0,
        createdAt: new Date().toISOString(),
      };
      links.push(link);
      return reply.status(201).send(linkObject(link));
    });

    app.get<{ Params: { id: string } }>('/api/v2/links/:id/stats', async (req, reply) => {
      if (guard(req, reply)) return reply;
      if (!UUID.test(req.params.id)) return fail(reply, 400, 'ID is invalid.');
      const link = links.find((l) => l.id === req.params.id);
      // Kutt throws its CustomError without a status here, which its error handler answers as 500.
      if (!link) return fail(reply, 500, 'Link could not be found.');
      const period = { stats: { browser: [], os: [], country: [], referrer: [] }, views: [] };
      return { lastDay: period, lastWeek: period, lastMonth: period, lastYear: period, updatedAt: new Date().toISOString(), ...linkObject(link) };
    });

    app.get('/api/v2/users', async (req, reply) => {
      if (guard(req, reply)) return reply;
      return {
        apikey: req.headers['x-api-key'],
        email: 'owner@example.com',
        domains: customDomains.map((address) => ({ id: randomUUID(), address, banned: false, homepage: null })),
      };
    });

    registerRedirects(app, links, 302, (reply) => reply.status(302).header('location', '/404').send());
  });

  return Object.assign(sim, {
    ...shortenerParts(sim, links, {
      serverError: () => ({ error: 'An error occurred. Please try again later.' }),
      malformed: () => ({ message: 'OK' }),
    }),
  });
}
