import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * A small browser for the server-rendered pages, on `inject`: it keeps cookies like a browser
 * (host-only, path /), sends forms as `application/x-www-form-urlencoded` with the CSRF token of
 * the last page it loaded, and can follow redirects.
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  /** the raw Set-Cookie headers of the last answer */
  lastSetCookies: string[] = [];
  lastHtml = '';

  constructor(
    private readonly app: FastifyInstance,
    private readonly opts: { ip?: string; headers?: Record<string, string> } = {},
  ) {}

  private cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(res: LightMyRequestResponse) {
    const raw = res.headers['set-cookie'];
    this.lastSetCookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    for (const line of this.lastSetCookies) {
      const [pair, ...attrs] = line.split(';').map((p) => p.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const expired = attrs.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && new Date(a.slice(8)).getTime() < Date.now()));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    if (String(res.headers['content-type'] ?? '').startsWith('text/html')) this.lastHtml = res.body;
  }

  async get(url: string, headers: Record<string, string> = {}) {
    const res = await this.app.inject({ method: 'GET', url, remoteAddress: this.opts.ip, headers: { ...this.opts.headers, cookie: this.cookieHeader(), ...headers } });
    this.remember(res);
    return res;
  }

  /** The CSRF token of the last page (the first form's, or the one in the form posting to `action`). */
  csrf(action?: string): string {
    const html = action ? (this.formHtml(action) ?? this.lastHtml) : this.lastHtml;
    const m = /name="_csrf" value="([^"]+)"/.exec(html);
    if (!m) throw new Error('no CSRF field on the last page');
    return m[1]!;
  }

  /** The markup of the form posting to `action` on the last page. */
  formHtml(action: string): string | undefined {
    const start = this.lastHtml.indexOf(`action="${action}"`);
    if (start < 0) return undefined;
    const end = this.lastHtml.indexOf('</form>', start);
    return this.lastHtml.slice(start, end);
  }

  /** The hidden fields of the form posting to `action` on the last page. */
  hiddenFields(action: string): Record<string, string> {
    const form = this.formHtml(action) ?? '';
    const out: Record<string, string> = {};
    for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) out[m[1]!] = decodeEntities(m[2]!);
    return out;
  }

  /** Posts a form; `_csrf` is the last page's unless given (or `null` to send none). */
  async post(url: string, fields: Record<string, string>, opts: { csrf?: string | null; headers?: Record<string, string> } = {}) {
    const form = new URLSearchParams(fields);
    if (!form.has('_csrf')) {
      const token = opts.csrf === undefined ? this.csrf(url.split('?')[0]) : opts.csrf;
      if (token !== null) form.set('_csrf', token);
    }
    const res = await this.app.inject({
      method: 'POST',
      url,
      remoteAddress: this.opts.ip,
      payload: form.toString(),
      headers: { ...this.opts.headers, 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader(), ...opts.headers },
    });
    this.remember(res);
    return res;
  }

  private apiCsrf?: string;

  /**
   * A call to the public API as the web app makes it: the session cookie, no Authorization
   * header, and (for state-changing methods) the session's CSRF token from GET /me.
   */
  async api(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, opts: { csrf?: string | null } = {}) {
    let csrf = opts.csrf;
    if (csrf === undefined && method !== 'GET') {
      if (!this.apiCsrf) {
        const me = await this.app.inject({ method: 'GET', url: '/public/v1/me', remoteAddress: this.opts.ip, headers: { cookie: this.cookieHeader() } });
        this.apiCsrf = me.json<{ csrfToken: string }>().csrfToken;
      }
      csrf = this.apiCsrf;
    }
    return this.app.inject({
      method,
      url,
      remoteAddress: this.opts.ip,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
      headers: { cookie: this.cookieHeader(), ...(csrf ? { 'x-csrf-token': csrf } : {}) },
    });
  }

  /** Follows a redirect answer (GET of its Location, made relative to the app). */
  async follow(res: LightMyRequestResponse) {
    const location = res.headers.location;
    if (!location) throw new Error(`no redirect (status ${res.statusCode})`);
    const url = new URL(String(location), 'http://localhost');
    return this.get(`${url.pathname}${url.search}`);
  }
}

export function decodeEntities(s: string) {
  return s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** The text of an element with class "secret" on the page (keys and secrets shown once). */
export function shownSecret(html: string): string {
  const m = /<span class="secret">([^<]+)<\/span>/.exec(html);
  if (!m) throw new Error('no secret shown on the page');
  return decodeEntities(m[1]!);
}

/** Signs up through the pages; answers the signed-in browser. */
export async function signUp(app: FastifyInstance, input: { email: string; password?: string; name?: string; organization?: string; invite?: string; ip?: string }) {
  const b = new Browser(app, { ip: input.ip });
  await b.get(input.invite ? `/account/signup?invite=${input.invite}` : '/account/signup');
  const res = await b.post('/account/signup', {
    email: input.email,
    password: input.password ?? 'correct horse battery',
    name: input.name ?? '',
    organization: input.organization ?? '',
    invite: input.invite ?? '',
  });
  if (res.statusCode !== 303) throw new Error(`sign-up answered ${res.statusCode}: ${res.body.slice(0, 500)}`);
  return b;
}

/** Signs in through the pages. */
export async function logIn(app: FastifyInstance, email: string, password = 'correct horse battery', ip?: string) {
  const b = new Browser(app, { ip });
  await b.get('/account/login');
  const res = await b.post('/account/login', { email, password });
  if (res.statusCode !== 303) throw new Error(`sign-in answered ${res.statusCode}: ${res.body.slice(0, 500)}`);
  return b;
}
