import { PlatformError, type OperationContext, type PlatformRequest, type PlatformResponse } from '../platform.js';

/**
 * The REST root of a WordPress site and the routes built from it. WordPress announces its root on
 * every front-end answer as `Link: <root>; rel="https://api.w.org/"`. With pretty permalinks the
 * root is a path (`https://site/wp-json/`, or `https://site/index.php/wp-json/` with "index"
 * permalinks) and a route is appended to it; without them it is a query
 * (`https://site/index.php?rest_route=/`) and the route goes into `rest_route`.
 */

export const API_LINK_REL = 'https://api.w.org/';

/** `https://blog.example.com/` → `https://blog.example.com` (a site in a folder keeps its folder). */
export function normalizeSiteUrl(raw: string): string {
  const value = raw.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`);
  } catch {
    throw new PlatformError('rejected', `"${value}" is not a web address`, { field: 'siteUrl' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new PlatformError('rejected', `Only http(s) sites are supported, not ${url.protocol}`, { field: 'siteUrl' });
  url.hash = '';
  url.search = '';
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The REST root announced in (possibly several, comma-joined) `Link` headers, if any. */
export function restRootFromLink(link: string | undefined, base: string): string | undefined {
  if (!link) return undefined;
  for (const m of link.matchAll(/<([^>]*)>([^<]*)/g)) {
    const params = m[2]!;
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    const rels = (rel?.[1] ?? rel?.[2] ?? '').split(/\s+/);
    if (!rels.includes(API_LINK_REL)) continue;
    try {
      return new URL(m[1]!.trim(), base).toString();
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The URL of `route` (`/wp/v2/posts`) under `root`, with `query`. Both forms of root work:
 * `…/wp-json/` + `wp/v2/posts`, and `…/index.php?rest_route=/` → `?rest_route=/wp/v2/posts&…`.
 */
export function routeUrl(root: string, route: string, query: Record<string, string | number | undefined> = {}): string {
  const url = new URL(root);
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const path = `/${route.replace(/^\/+/, '')}`;
  if (url.searchParams.has('rest_route')) {
    const base = (url.searchParams.get('rest_route') ?? '/').replace(/\/+$/, '');
    url.searchParams.delete('rest_route');
    const others = url.searchParams.toString();
    // Slashes stay readable in rest_route (PHP decodes either form).
    const restRoute = encodeURIComponent(`${base}${path}`).replace(/%2F/gi, '/');
    const rest = params.toString();
    return `${url.origin}${url.pathname}?${others ? `${others}&` : ''}rest_route=${restRoute}${rest ? `&${rest}` : ''}`;
  }
  const rest = params.toString();
  return `${url.origin}${url.pathname.replace(/\/*$/, '/')}${path.slice(1)}${url.search ? `${url.search}${rest ? `&${rest}` : ''}` : rest ? `?${rest}` : ''}`;
}

export interface Site {
  /** REST root as WordPress announced it */
  restRoot: string;
  username: string;
  applicationPassword: string;
}

/** `Authorization: Basic base64(user:password)`; WordPress ignores the spaces it shows in application passwords. */
export function basicAuth(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/** One authenticated call to the site; every host is the user's, so the SSRF guard applies. */
export function wpRequest(
  ctx: Pick<OperationContext, 'http'>,
  site: Site,
  method: PlatformRequest['method'],
  route: string,
  opts: { query?: Record<string, string | number | undefined>; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<PlatformResponse> {
  return ctx.http.request({
    method,
    url: routeUrl(site.restRoot, route, opts.query),
    headers: { accept: 'application/json', authorization: basicAuth(site.username, site.applicationPassword), ...opts.headers },
    body: opts.body,
    ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
    untrustedHost: true,
  });
}

/**
 * The REST root of the site at `siteUrl`: the `Link` header of its front page, else the default
 * `<site>/wp-json/`. Network failures of the front page fall through to the default, whose own
 * failure then tells the user.
 */
export async function discoverRestRoot(ctx: Pick<OperationContext, 'http'>, siteUrl: string): Promise<string> {
  try {
    const res = await ctx.http.request({ method: 'GET', url: `${siteUrl}/`, headers: { accept: 'text/html' }, untrustedHost: true });
    const found = restRootFromLink(res.headers.link, `${siteUrl}/`);
    if (found) return found;
  } catch (e) {
    // A refused address (private network, unknown host) will not get better at /wp-json/.
    if (e instanceof PlatformError && e.kind === 'rejected') throw new PlatformError('rejected', e.message, { field: 'siteUrl' });
  }
  return `${siteUrl}/wp-json/`;
}
