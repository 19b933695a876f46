import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The built calendar app (`vite build` of web/), one level up from both src/ and dist/. */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

/** Paths that belong to the service, never to the app's client-side routes. */
const SERVICE_PATHS = ['/public/', '/api/', '/account', '/oauth/', '/device', '/media/', '/.well-known/', '/integrations/', '/healthz', '/readyz', '/assets/', '/preview-api/'];

/**
 * The app's pages: what it loads is its own (`'self'`); pictures and videos of the media
 * library may come from S3 or a CDN (https), from the origins media URLs are built from
 * (`mediaOrigins`: PUBLIC_URL, S3_PUBLIC_URL, S3_ENDPOINT — the app may be opened at another
 * address of the same server, `127.0.0.1` while PUBLIC_URL says `localhost`, and media URLs name
 * PUBLIC_URL because that is the address platforms fetch them from) or be local previews
 * (`blob:`); FullCalendar sets inline styles and ships its icon font inline (`data:`); no framing.
 */
export function appHeaders(mediaOrigins: readonly string[] = []): Record<string, string> {
  const media = [...new Set(mediaOrigins.map((u) => new URL(u).origin))].join(' ');
  const sources = (base: string) => (media ? `${base} ${media}` : base);
  return {
    'content-security-policy': [
      "default-src 'self'",
      sources("img-src 'self' https: data: blob:"),
      sources("media-src 'self' https: blob:"),
      "style-src 'self' 'unsafe-inline'",
      "font-src 'self' data:",
      "connect-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      "form-action 'self'",
    ].join('; '),
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'x-content-type-options': 'nosniff',
    // a new build must reach browsers at once; the hashed assets it names are cached for a year
    'cache-control': 'no-cache',
  };
}

/** The service's icon (the app's own, web/public), for every page: the app, the account pages, the OAuth callback page. */
const FAVICON = fileURLToPath(new URL('../../web/public/favicon.svg', import.meta.url));

/**
 * `/favicon.svg`, and `/favicon.ico` for browsers that ask for it by that name (pages without an
 * icon link), whether or not the app is built: no page of the service logs a 404 for its icon.
 */
export function installFavicon(app: FastifyInstance, opts: { dir?: string } = {}) {
  const built = join(opts.dir ?? WEB_DIST, 'favicon.svg');
  const file = existsSync(built) ? built : FAVICON;
  if (!existsSync(file)) return;
  const bytes = readFileSync(file);
  for (const path of ['/favicon.svg', '/favicon.ico']) {
    app.get(path, { schema: { hide: true } }, async (_req, reply) => reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(bytes));
  }
}

/** A file name (`/robots.txt`, `/wp-login.php`): never one of the app's client-side routes. */
const FILE_NAME = /\/[^/]*\.[A-Za-z0-9]+$/;

/**
 * Serves the calendar app (issue 16) at `/`: hashed assets from `/assets/` (cached for good), and
 * `index.html` for every other GET a browser makes outside the service's own paths (the app's
 * client-side routes). Without a build (`npm run build:web`) nothing is served and such paths 404.
 */
export async function installWebApp(app: FastifyInstance, opts: { dir?: string; mediaOrigins?: readonly string[] } = {}) {
  const dir = opts.dir ?? WEB_DIST;
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile)) return undefined;
  const index = readFileSync(indexFile);
  await app.register(fastifyStatic, { root: join(dir, 'assets'), prefix: '/assets/', decorateReply: false, index: false, immutable: true, maxAge: '365d' });
  const headers = appHeaders(opts.mediaOrigins);
  return {
    /**
     * A GET for one of the app's own pages: any path outside the service's, whatever the `Accept`
     * header (`curl /calendar` gets the page a browser gets), except a file name that is not
     * here, which stays a 404 unless a browser asks for a page. The service's paths keep their
     * JSON answers, the 404 of an unknown one included.
     */
    handles(req: FastifyRequest): boolean {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const path = req.url.split('?')[0]!;
      if (SERVICE_PATHS.some((p) => path === p.replace(/\/$/, '') || path.startsWith(p))) return false;
      return !FILE_NAME.test(path) || (req.headers.accept ?? '').includes('text/html');
    },
    sendIndex(reply: FastifyReply) {
      return reply.status(200).headers(headers).type('text/html; charset=utf-8').send(index);
    },
  };
}

export type WebApp = NonNullable<Awaited<ReturnType<typeof installWebApp>>>;
