import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { ERROR_CODES, type FieldError } from '../errors.js';
import type { SessionContext } from '../modules/sessions/sessions.service.js';
import { mapError } from './error-handler.js';

/** Markup that is already safe (made by `html`, never from unescaped input). */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function render(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  if (typeof value === 'string') return escapeHtml(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  throw new TypeError(`a page cannot show a ${typeof value}`);
}

/** A template whose every interpolated value is escaped, except `Html` (and arrays of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

/**
 * The pages' one stylesheet: served by the service itself, no third-party assets. It looks like
 * the calendar app (web/src/styles.css): the same system font stack (the app bundles no web
 * font), the same colours light and dark, the product mark; the page is a centred card, and every
 * input and button is at least 44 px tall (WCAG 2.5.5), down to 360 px wide without sideways scroll.
 */
export const STYLESHEET = `
:root{color-scheme:light dark;--fg:#1d1d1f;--muted:#5b5b66;--bg:#fff;--page:#f5f6f8;--line:#d5d7dd;--accent:#2354d6;--accent-fg:#fff;--bad:#b3261e;--ok:#1e6b34;--panel:#f5f6f8;--radius:8px}
@media (prefers-color-scheme:dark){:root{--fg:#ececf1;--muted:#a3a3b0;--bg:#1f2026;--page:#15161a;--line:#383a44;--accent:#8fb0ff;--accent-fg:#0d1330;--bad:#ff8a80;--ok:#7ad39a;--panel:#15161a}}
*{box-sizing:border-box}html{-webkit-text-size-adjust:100%}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--page);margin:0;min-height:100vh;display:flex;flex-direction:column;overflow-wrap:break-word}
a{color:var(--accent)}
header{padding:.75rem 1rem;display:flex;gap:.5rem 1rem;align-items:center;flex-wrap:wrap;justify-content:space-between;max-width:60rem;width:100%;margin:0 auto}
header .brand{font-weight:700;font-size:1.1rem;text-decoration:none;color:var(--fg);display:inline-flex;align-items:center;gap:.5rem;min-height:44px}
header .brand img{width:28px;height:28px;border-radius:6px}
nav{display:flex;gap:.1rem .9rem;flex-wrap:wrap}nav a{display:inline-flex;align-items:center;min-height:44px}
header .muted{flex-basis:100%;font-size:.9rem;overflow-wrap:anywhere}
main{width:calc(100% - 2rem);max-width:30rem;margin:1rem auto 3rem;padding:1.5rem 1.75rem;background:var(--bg);border:1px solid var(--line);border-radius:12px;box-shadow:0 1px 2px rgb(0 0 0 / .04),0 8px 24px rgb(0 0 0 / .06)}
main:has(table){max-width:56rem}
h1{font-size:1.45rem;line-height:1.25;margin:.1rem 0 1rem}h2{font-size:1.15rem;margin-top:2rem}
label{display:block;font-weight:600;margin:1rem 0 .3rem}
input[type=text],input[type=email],input[type=password],input[type=url],select,textarea{width:100%;min-height:44px;padding:.55rem .7rem;font:inherit;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
input:focus-visible,select:focus-visible,textarea:focus-visible{border-color:var(--accent)}
input[aria-invalid=true]{border-color:var(--bad)}
textarea{min-height:5rem}.hint{color:var(--muted);font-size:.88rem;margin:.1rem 0 .3rem}
button{font:inherit;font-weight:600;min-height:44px;padding:.55rem 1.1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);cursor:pointer;margin-top:1.1rem}
form>button[type=submit]:only-of-type{width:100%}
button.secondary{background:transparent;color:var(--accent)}button.danger{border-color:var(--bad);background:transparent;color:var(--bad)}
.inline{display:inline}.inline button{margin:0 .3rem 0 0;padding:.3rem .7rem;font-size:.9rem}
.error{color:var(--bad);font-size:.92rem;margin:.25rem 0}.notice{border:1px solid var(--line);background:var(--panel);border-radius:var(--radius);padding:.75rem 1rem;margin:0 0 1rem}
.notice.bad{border-color:var(--bad)}.notice.ok{border-color:var(--ok)}code,.secret{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
.secret{display:block;padding:.6rem;background:var(--panel);border:1px dashed var(--line);border-radius:6px;user-select:all}
.table-wrap,main:has(table){overflow-x:auto}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
.muted{color:var(--muted)}.app-logo{width:48px;height:48px;border-radius:8px;object-fit:cover;float:right;margin:0 0 .5rem .75rem}
fieldset.choice{border:1px solid var(--line);border-radius:var(--radius);padding:.2rem 1rem .6rem;margin:1rem 0;min-width:0}fieldset.choice legend{font-weight:600;padding:0 .3rem}
.choice label{display:flex;gap:.6rem;align-items:flex-start;font-weight:400;margin:.7rem 0 0;cursor:pointer;min-height:44px}.choice input{margin:.35rem 0 0;flex:none;width:20px;height:20px}.choice .hint{display:block}code.host{word-break:normal;overflow-wrap:anywhere}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip-link{position:absolute;top:.5rem;left:.5rem;padding:.5rem .9rem;border-radius:6px;background:var(--accent);color:var(--accent-fg);font-weight:600;text-decoration:none;transform:translateY(calc(-100% - 1rem))}.skip-link:focus{transform:none}main:focus{outline:none}
@media (max-width:480px){header{padding:.5rem .75rem}main{width:calc(100% - 1rem);margin:.25rem auto 2rem;padding:1.1rem 1rem;border-radius:10px}h1{font-size:1.3rem}}
`;

/**
 * Headers of every page: nothing loaded from elsewhere except app logos (https images), no
 * framing (the consent page must not be clickjacked), no referrer (reset and invitation links
 * carry tokens in the URL), never cached.
 */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self' https: data:; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

export interface PageNav {
  session: SessionContext | undefined;
  /** the calendar app is served: link to it */
  app?: boolean;
  /** the organisation the person works in, for the header */
  organizationName?: string;
}

/**
 * A whole page: `title` is its heading and names the browser tab ("API keys · Tidings");
 * `tabTitle` when the tab should say more than the heading ("Acme · Organisation").
 */
export function layout(title: string, nav: PageNav, body: Html, tabTitle = title): Html {
  const links = nav.session
    ? html`<nav aria-label="Account">
        ${nav.app ? html`<a href="/">Calendar</a>` : ''}
        <a href="/account">Account</a>
        <a href="/account/organization">Organisation</a>
        <a href="/account/api-keys">API keys</a>
        <a href="/account/apps">Apps</a>
        <a href="/account/approved-apps">Approved apps</a>
      </nav>
      <span class="muted">${nav.session.email}${nav.organizationName ? html` · ${nav.organizationName}` : ''}</span>`
    : html`<nav aria-label="Account"><a href="/account/login">Sign in</a><a href="/account/signup">Sign up</a></nav>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${tabTitle} · Tidings</title><link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/account/style.css"></head>
<body><a class="skip-link" href="#main">Skip to main content</a><header><a class="brand" href="/account"><img src="/favicon.svg" alt="" width="28" height="28">Tidings</a>${links}</header>
<main id="main" tabindex="-1"><h1>${title}</h1>${body}</main></body></html>`;
}

export function sendPage(reply: FastifyReply, page: Html, status = 200) {
  return reply.status(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page.value);
}

/** A hidden CSRF field. */
export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

/** The message of a field, if the error names it. */
export function fieldMessage(errors: FieldError[] | undefined, name: string): Html | '' {
  const e = errors?.find((f) => f.path === name || f.path.startsWith(`${name}.`));
  return e ? html`<p class="error" id="${name}-error" role="alert">${e.message}</p>` : '';
}

export interface FieldOptions {
  label: string;
  name: string;
  type?: 'text' | 'email' | 'password' | 'url';
  value?: string;
  autocomplete?: string;
  required?: boolean;
  hint?: string;
  errors?: FieldError[];
}

export function inputField(o: FieldOptions): Html {
  const message = fieldMessage(o.errors, o.name);
  const describedBy = [o.hint ? `${o.name}-hint` : '', message ? `${o.name}-error` : ''].filter(Boolean).join(' ');
  return html`<label for="${o.name}">${o.label}</label>
${o.hint ? html`<p class="hint" id="${o.name}-hint">${o.hint}</p>` : ''}
<input id="${o.name}" name="${o.name}" type="${o.type ?? 'text'}" value="${o.value ?? ''}"${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${o.required ? html` required` : ''}${message ? html` aria-invalid="true"` : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}>
${message}`;
}

/** A notice box (errors that name no field, confirmations). */
export const notice = (text: string | Html, kind: 'bad' | 'ok' | 'info' = 'info') =>
  html`<div class="notice ${kind === 'info' ? '' : kind}" role="${kind === 'bad' ? 'alert' : 'status'}">${text}</div>`;

/** A local path to go back to after signing in (never another site). */
export function safeNext(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\') || value.length > 4000) return undefined;
  return value;
}

export function loginRedirect(req: FastifyRequest, reply: FastifyReply) {
  return reply.redirect(`/account/login?next=${encodeURIComponent(req.url)}`, 303);
}

/**
 * A scope of server-rendered pages: form bodies parsed, the stylesheet served, refusals shown
 * as a page in the one wording of the error codes (not the API's JSON).
 */
export async function installPages(scope: FastifyInstance, nav: (req: FastifyRequest) => Promise<PageNav>) {
  await scope.register(formbody, { bodyLimit: 64 * 1024 });
  scope.get('/account/style.css', { schema: { hide: true } }, async (_req, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
  );
  scope.setErrorHandler(async (err, req, reply) => {
    const mapped = mapError(err);
    const status = ERROR_CODES[mapped.code];
    if (status >= 500) req.log.error({ err }, 'page failed');
    if (mapped.headers) void reply.headers(mapped.headers);
    const fields = mapped.fields?.length ? html`<ul>${mapped.fields.map((f) => html`<li><code>${f.path}</code>: ${f.message}</li>`)}</ul>` : '';
    const body = html`${notice(mapped.message, 'bad')}${fields}<p class="muted">Error ${mapped.code}, request ${req.id}.</p>`;
    return sendPage(reply, layout(status >= 500 ? 'Something went wrong' : 'That did not work', await nav(req).catch(() => ({ session: undefined })), body), status);
  });
}
