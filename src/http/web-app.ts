import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The built calendar app (`vite build` of web/), one level up from both src/ and dist/. */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** Paths that belong to the service, never to the app's client-side routes. */
const SERVICE_PATHS = ['/public/', '/api/', '/account', '/oauth/', '/device', '/media/', '/.well-known/', '/integrations/', '/healthz', '/readyz', '/assets/'];

/**
 * The app's pages: what it loads is its own (`'self'`); pictures and videos of the media
 * library may come from S3 or a CDN (https) or be local previews (`blob:`); FullCalendar sets
 * inline styles and ships its icon font inline (`data:`); no framing.
 */
const APP_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' https: data: blob:; media-src 'self' https: blob:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  // a new build must reach browsers at once; the hashed assets it names are cached for a year
  'cache-control': 'no-cache',
};

/**
 * Serves the calendar app (issue 16) at `/`: hashed assets from `/assets/` (cached for good), and
 * `index.html` for every other GET a browser makes outside the service's own paths (the app's
 * client-side routes). Without a build (`npm run build:web`) nothing is served and such paths 404.
 */
export async function installWebApp(app: FastifyInstance, opts: { dir?: string } = {}) {
  const dir = opts.dir ?? WEB_DIST;
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile)) return undefined;
  const index = readFileSync(indexFile);
  await app.register(fastifyStatic, { root: join(dir, 'assets'), prefix: '/assets/', decorateReply: false, index: false, immutable: true, maxAge: '365d' });
  for (const file of ['favicon.svg']) {
    if (!existsSync(join(dir, file))) continue;
    const bytes = readFileSync(join(dir, file));
    app.get(`/${file}`, { schema: { hide: true } }, async (_req, reply) => reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(bytes));
  }
  return {
    /** A GET for one of the app's own pages (a browser asking for HTML outside the service's paths). */
    handles(req: FastifyRequest): boolean {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const path = req.url.split('?')[0]!;
      if (SERVICE_PATHS.some((p) => path === p.replace(/\/$/, '') || path.startsWith(p))) return false;
      return (req.headers.accept ?? '').includes('text/html');
    },
    sendIndex(reply: FastifyReply) {
      return reply.status(200).headers(APP_HEADERS).type('text/html; charset=utf-8').send(index);
    },
  };
}

export type WebApp = NonNullable<Awaited<ReturnType<typeof installWebApp>>>;
