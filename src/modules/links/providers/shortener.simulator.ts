import type { FastifyInstance, FastifyReply } from 'fastify';
import { fixedWindowCounter } from '../../../platforms/common/rate-limit.simulator.js';
import type { Simulator } from '../../../platforms/simulator.js';

/**
 * What the three shortener simulators (Dub, Short.io, Kutt) share. Each is one server standing for
 * the provider's API host(s) and its short domains: tests map the real API origins to it
 * (PLATFORM_ORIGINS) and follow a short link by asking the simulator for the short URL's path.
 *
 * The API every `start<Id>Simulator(opts)` returns (`ShortenerSimulator`):
 * - `origin`, `close()`, `log`, `inject(…)`, `setLatency(ms)`: as every platform simulator;
 * - `links`: every link made so far (`SimulatedLink`: the provider's id, domain, path, target,
 *   short URL, clicks by people and by bots);
 * - `clicksOf(id)`: clicks by people on that link (what the provider's click count says);
 * - `visit(shortUrlOrPath, userAgent?)`: follows a short link as a browser (or, with a crawler's
 *   user agent, as a link-preview bot) would: `{ status, location }` (a 301/302 to the target,
 *   a people click counted once per visit; bots counted apart, as each provider does);
 * - `injectKind('server_error' | 'malformed', path?)`: the next matching request gets the
 *   provider's own 500 body, or a 200 whose body is not what the API documents.
 */
export interface SimulatedLink {
  /** the provider's id of the link (what `shorten` returns and `clicks` takes) */
  id: string;
  domain: string;
  /** the short link's path without the leading slash (Dub's `key`, Short.io's `path`, Kutt's `address`) */
  path: string;
  target: string;
  shortUrl: string;
  /** visits by people */
  clicks: number;
  /** visits by crawlers and link-preview bots */
  botClicks: number;
  createdAt: string;
}

export interface ShortenerSimulator extends Simulator {
  readonly links: SimulatedLink[];
  /** Clicks by people on link `id` (0 for an unknown id). */
  clicksOf(id: string): number;
  /** Follows a short link (its full URL or its path) with `userAgent` (default: a desktop browser's). */
  visit(shortUrlOrPath: string, userAgent?: string): Promise<{ status: number; location: string | undefined }>;
  injectKind(kind: 'server_error' | 'malformed', path?: RegExp): void;
  /** Deletes link `id` on the provider's side (its clicks can no longer be read). */
  deleteLink(id: string): void;
}

export const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

/** Crawlers and the link-preview fetchers of social platforms (a small stand-in for the `isbot` lists providers use). */
const BOT = /bot|crawl|spider|slurp|facebookexternalhit|embedly|preview|whatsapp|telegram|discord|slack|skype|vkshare|curl|wget|python-requests|go-http-client/i;

export function isBot(userAgent: string | undefined): boolean {
  return !userAgent || BOT.test(userAgent);
}

const ALNUM = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export function randomCode(length: number, alphabet = ALNUM): string {
  let s = '';
  for (let i = 0; i < length; i++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  return s;
}

export function isHttpUrl(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.includes('.');
  } catch {
    return false;
  }
}

/**
 * A per-key request limit in a fixed window; `limited` answers the provider's 429 itself and says
 * whether it did. `headers` are set on every answer (the provider's own rate-limit headers).
 */
export function rateLimiter(limit: number, windowMs: number) {
  const counter = fixedWindowCounter<string>(windowMs);
  return (key: string, reply: FastifyReply, headers: (left: number, resetAtMs: number) => Record<string, string>, tooMany: () => unknown): boolean => {
    const w = counter.hit(key);
    const resetAt = counter.endOf(w);
    reply.headers(headers(Math.max(0, limit - w.count), resetAt));
    if (w.count <= limit) return false;
    reply.header('retry-after', String(Math.max(1, Math.ceil((resetAt - Date.now()) / 1000))));
    void reply.status(429).send(tooMany());
    return true;
  };
}

/** The parts of `ShortenerSimulator` that are the same for every provider, over `links` and the simulator. */
export function shortenerParts(
  sim: Simulator,
  links: SimulatedLink[],
  shapes: { serverError: () => unknown; malformed: () => unknown },
): Pick<ShortenerSimulator, 'links' | 'clicksOf' | 'visit' | 'injectKind' | 'deleteLink'> {
  return {
    links,
    clicksOf: (id) => links.find((l) => l.id === id)?.clicks ?? 0,
    async visit(shortUrlOrPath, userAgent = BROWSER_UA) {
      const path = /^https?:\/\//.test(shortUrlOrPath) ? new URL(shortUrlOrPath).pathname : shortUrlOrPath;
      // inject, not fetch: works the same when the simulator runs in-process (the sandbox)
      const res = await sim.app.inject({ method: 'GET', url: path, headers: { 'user-agent': userAgent } });
      const location = res.headers.location;
      return { status: res.statusCode, location: typeof location === 'string' ? location : undefined };
    },
    injectKind(kind, path) {
      if (kind === 'server_error') sim.inject({ path, status: 500, body: shapes.serverError() });
      else sim.inject({ path, status: 200, body: shapes.malformed(), headers: { 'content-type': 'application/json' } });
    },
    deleteLink(id) {
      const i = links.findIndex((l) => l.id === id);
      if (i !== -1) links.splice(i, 1);
    },
  };
}

/**
 * The short domains' side: `GET /<path>` redirects to the target with `status`, counting the visit
 * (people and bots apart); an unknown path answers 404 (or `notFound`). Register it last: the API's
 * own static paths take precedence over this parametric one.
 */
export function registerRedirects(app: FastifyInstance, links: SimulatedLink[], status: 301 | 302, notFound?: (reply: FastifyReply) => unknown) {
  app.get<{ Params: { path: string } }>('/:path', async (req, reply) => {
    const link = links.find((l) => l.path === req.params.path);
    if (!link) return notFound ? notFound(reply) : reply.status(404).type('text/plain').send('Not found');
    if (isBot(req.headers['user-agent'])) link.botClicks++;
    else link.clicks++;
    return reply.status(status).header('location', link.target).header('cache-control', 'no-store').send();
  });
}
