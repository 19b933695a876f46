import { createHmac } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type FieldError } from '../../errors.js';
import { safeEqual } from './oauth-core.js';
import { csrfField, html, inputField, layout, notice, sendPage, type Html } from '../../http/pages.js';
import { bodyOf, formError, signedIn, str, type PageDeps } from '../accounts/accounts.pages.js';
import type { SessionContext } from '../sessions/sessions.service.js';
import type { ClientsService } from './clients.service.js';
import type { DeviceService } from './device.service.js';
import { GRANTING_ROLES } from './oauth-core.js';
import { AuthorizeError, type AuthorizationRequest, type OauthService } from './oauth.service.js';

/** The authorisation request's parameters, carried from the consent page to its form. */
const REQUEST_PARAMS = ['client_id', 'redirect_uri', 'response_type', 'code_challenge', 'code_challenge_method', 'state', 'scope', 'resource'] as const;

const fmt = (d: Date | string | null) => (d ? new Date(d).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : 'never');

/**
 * Binds the consent form to the request the page showed: an HMAC (keyed with the session's CSRF
 * secret) over its parameters. A form whose hidden fields were changed (another redirect URI,
 * state or challenge) is refused instead of being approved as shown.
 */
function requestSeal(session: SessionContext, q: Record<string, string | undefined>): string {
  return createHmac('sha256', session.csrfSecret)
    .update(JSON.stringify(REQUEST_PARAMS.map((k) => q[k] ?? null)))
    .digest('base64url');
}

function pick(source: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const k of REQUEST_PARAMS) if (typeof source[k] === 'string') out[k] = source[k];
  // RFC 8707 lets a request name several resources (`resource` repeated): all are checked, carried space-separated
  const resources = source.resource;
  if (Array.isArray(resources) && resources.every((r) => typeof r === 'string')) out.resource = resources.join(' ');
  return out;
}

/**
 * The people's side of the OAuth server (issue 15): the consent page, the device verification
 * page, the organisation's registered apps, and the apps a person approved.
 */
export function oauthPages(deps: PageDeps & { oauth: OauthService; clients: ClientsService; device: DeviceService }) {
  const { accounts, helpers, oauth, clients, device } = deps;

  async function page(req: FastifyRequest, reply: FastifyReply, title: string, body: Html, status = 200) {
    return sendPage(reply, layout(title, await deps.nav(req), body), status);
  }

  /** The organisations the person may give an app access to, the one they work in first. */
  async function grantable(session: SessionContext) {
    const { memberships } = await accounts.overview(session);
    return memberships
      .filter((m) => GRANTING_ROLES.includes(m.role))
      .sort((a, b) => Number(b.organizationId === session.organizationId) - Number(a.organizationId === session.organizationId));
  }

  function orgSelect(orgs: { organizationId: string; name: string }[]) {
    return html`<label for="organizationId">Organisation</label>
<select id="organizationId" name="organizationId">${orgs.map((o) => html`<option value="${o.organizationId}">${o.name}</option>`)}</select>`;
  }

  /**
   * What the app may do: a list, or (when it asks to change things) a radio group where the
   * person chooses read only or read and write; what they choose is all the token carries.
   */
  function accessPart(r: AuthorizationRequest, inForm: boolean): Html {
    const list = (items: string[]) => html`<ul>${items.map((d) => html`<li>${d}</li>`)}</ul>`;
    if (!r.access || !inForm) return html`<h2>It will be able to</h2>${list(r.scopeDescriptions)}`;
    return html`<fieldset class="choice"><legend>What may ${r.client.name} do?</legend>
<label><input type="radio" name="access" value="read"><span><strong>Read only</strong><span class="hint">${r.access.readDescriptions.join('. ')}. It cannot change anything.</span></span></label>
<label><input type="radio" name="access" value="write" checked><span><strong>Read and write</strong><span class="hint">${r.access.writeDescriptions.join('. ')}.</span></span></label>
</fieldset>`;
  }

  function appIdentity(r: AuthorizationRequest): Html {
    const who =
      r.client.origin === 'organization'
        ? html`registered by the organisation <strong>${r.clientOrganizationName ?? 'unknown'}</strong>`
        : r.client.origin === 'dynamic'
          ? html`<strong>registered itself</strong>: Tidings has not checked who made it. Approve only if you started this from an app you trust.`
          : html`built into Tidings`;
    const redirectHost = new URL(r.redirectUri).host;
    return html`${r.client.logoUrl ? html`<img class="app-logo" src="${r.client.logoUrl}" alt="" referrerpolicy="no-referrer">` : ''}
<p><strong>${r.client.name}</strong> asks to act for one of your organisations. It is ${who}</p>
<p class="muted">After you answer you go back to <code class="host">${redirectHost}</code>.</p>`;
  }

  return async (app: FastifyInstance) => {
    // ---- consent -------------------------------------------------------------------------
    app.get('/oauth/authorize', { schema: { hide: true } }, async (req, reply) => {
      const q = pick(req.query as Record<string, unknown>);
      let request: AuthorizationRequest;
      try {
        request = await oauth.checkAuthorizationRequest(q);
      } catch (e) {
        if (!(e instanceof AuthorizeError)) throw e;
        if (e.redirect) return reply.redirect(e.redirect, 303);
        return page(req, reply, 'This app cannot sign in', notice(e.message, 'bad'), 400);
      }
      const session = signedIn(req, reply);
      if (!session) return reply;
      const orgs = await grantable(session);
      const csrf = helpers.csrfToken(req, reply);
      const hidden = [
        ...REQUEST_PARAMS.map((k) => (q[k] === undefined ? '' : html`<input type="hidden" name="${k}" value="${q[k]}">`)),
        html`<input type="hidden" name="_request" value="${requestSeal(session, q)}">`,
      ];
      const body = html`${appIdentity(request)}
${orgs.length ? '' : accessPart(request, false)}
${
  orgs.length
    ? html`<form method="post" action="/oauth/authorize">${csrfField(csrf)}${hidden}${accessPart(request, true)}${orgSelect(orgs)}
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button></form>`
    : html`${notice('Only owners and admins can give an app access to an organisation, and you are neither in any of yours.', 'bad')}
<form method="post" action="/oauth/authorize">${csrfField(csrf)}${hidden}<button type="submit" name="decision" value="deny" class="secondary">Go back to the app</button></form>`
}
<p class="muted">The access lasts until you revoke it on the <a href="/account/approved-apps">approved apps</a> page, or you leave the organisation.</p>`;
      return page(req, reply, `Allow ${request.client.name}?`, body);
    });

    app.post('/oauth/authorize', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      const body = bodyOf(req);
      helpers.checkCsrf(req, body._csrf);
      const q = pick(body);
      if (!safeEqual(str(body, '_request'), requestSeal(session, q))) {
        throw new AppError('CSRF_FAILED', 'The sign-in request was changed after the page was shown: start again from the app');
      }
      try {
        const target = await oauth.decide(session, q, { approve: body.decision === 'approve', organizationId: str(body, 'organizationId'), access: str(body, 'access') });
        return reply.redirect(target, 303);
      } catch (e) {
        if (e instanceof AuthorizeError) {
          if (e.redirect) return reply.redirect(e.redirect, 303);
          return page(req, reply, 'This app cannot sign in', notice(e.message, 'bad'), 400);
        }
        const f = formError(e);
        return page(req, reply, 'That did not work', notice(f.message, 'bad'), f.status);
      }
    });

    // ---- device verification -------------------------------------------------------------
    async function devicePage(req: FastifyRequest, reply: FastifyReply, session: SessionContext, state: { code?: string; message?: string; fields?: FieldError[] } = {}, status = 200) {
      const csrf = helpers.csrfToken(req, reply);
      const code = state.code ?? '';
      let details: Awaited<ReturnType<DeviceService['describe']>> | undefined;
      let problem = state.message;
      if (code && !problem) {
        try {
          details = await device.describe(session, code, req.ip);
        } catch (e) {
          const f = formError(e);
          if (f.headers) void reply.headers(f.headers);
          problem = f.message;
          status = f.status;
        }
      }
      if (!details) {
        const body = html`${problem ? notice(problem, 'bad') : ''}<p>Type the code your command-line tool shows (like <code>BCDF-GHJK</code>).</p>
<form method="get" action="/device/verify">${inputField({ label: 'Code', name: 'code', value: code, autocomplete: 'off', required: true, errors: state.fields })}
<button type="submit">Continue</button></form>`;
        return page(req, reply, 'Sign in a device', body, status);
      }
      const orgs = await grantable(session);
      const body = html`<p><strong>${details.clientName}</strong> (code <code>${details.userCode}</code>) asks to act for one of your organisations.</p>
<p class="muted">Only continue if you started this login yourself, just now, and the code matches what your terminal shows.</p>
<h2>It will be able to</h2><ul>${details.scopes.map((d) => html`<li>${d}</li>`)}</ul>
${
  orgs.length
    ? html`<form method="post" action="/device/verify">${csrfField(csrf)}<input type="hidden" name="code" value="${details.userCode}">${orgSelect(orgs)}
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button></form>`
    : notice('Only owners and admins can give a device access to an organisation, and you are neither in any of yours.', 'bad')
}`;
      return page(req, reply, 'Sign in a device', body, status);
    }

    const showDevice = async (req: FastifyRequest, reply: FastifyReply) => {
      const session = signedIn(req, reply);
      return session ? devicePage(req, reply, session, { code: str(req.query as Record<string, unknown>, 'code') }) : reply;
    };
    app.get('/device', { schema: { hide: true } }, showDevice);
    app.get('/device/verify', { schema: { hide: true } }, showDevice);

    app.post('/device/verify', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      const body = bodyOf(req);
      helpers.checkCsrf(req, body._csrf);
      const approve = body.decision === 'approve';
      try {
        await device.decide(session, { userCode: str(body, 'code'), organizationId: str(body, 'organizationId'), approve });
      } catch (e) {
        const f = formError(e);
        return devicePage(req, reply, session, { code: str(body, 'code'), message: f.message }, f.status);
      }
      return page(
        req,
        reply,
        approve ? 'Device signed in' : 'Device refused',
        notice(approve ? 'Done: go back to your terminal, it continues on its own.' : 'The device was refused; nothing was shared with it.', approve ? 'ok' : 'info'),
      );
    });

    // ---- the organisation's apps (developer settings) -------------------------------------
    async function appsPage(req: FastifyRequest, reply: FastifyReply, session: SessionContext, state: { ok?: Html; message?: string; fields?: FieldError[]; values?: Record<string, unknown> } = {}, status = 200) {
      let data;
      try {
        data = await clients.listApps(session);
      } catch (e) {
        return page(req, reply, 'Apps', notice(formError(e).message, 'bad'), 403);
      }
      const csrf = helpers.csrfToken(req, reply);
      const v = state.values ?? {};
      const list = data.apps.length
        ? html`<table><thead><tr><th>App</th><th>Client id</th><th>Redirect URIs</th><th></th></tr></thead><tbody>${data.apps.map(
            (a) => html`<tr><td>${a.name}<br><span class="muted">${a.kind}${a.secretPrefix ? html`, secret <code>${a.secretPrefix}…</code>` : ''}</span></td><td><code>${a.clientId}</code></td><td>${a.redirectUris.map((u) => html`<code>${u}</code><br>`)}</td><td>${
              a.kind === 'confidential'
                ? html`<form class="inline" method="post" action="/account/apps/${a.id}/rotate-secret">${csrfField(csrf)}<button type="submit" class="secondary">New secret</button></form>`
                : ''
            }<form class="inline" method="post" action="/account/apps/${a.id}/delete">${csrfField(csrf)}<button type="submit" class="danger">Delete</button></form></td></tr>`,
          )}</tbody></table>`
        : html`<p class="muted">No apps yet.</p>`;
      const body = html`${state.ok ?? ''}${state.message ? notice(state.message, 'bad') : ''}
<p>Apps that sign people in with OAuth 2.1 (authorisation code + PKCE S256) to act for an organisation. Server metadata: <a href="/.well-known/oauth-authorization-server"><code>/.well-known/oauth-authorization-server</code></a>.</p>
<h2>Registered by ${data.organization.name}</h2>${list}
<h2>Register an app</h2>
<form method="post" action="/account/apps" novalidate>${csrfField(csrf)}
${inputField({ label: 'Name', name: 'name', value: typeof v.name === 'string' ? v.name : '', required: true, hint: 'Shown to people on the consent page.', errors: state.fields })}
${inputField({ label: 'Logo URL (optional)', name: 'logoUrl', type: 'url', value: typeof v.logoUrl === 'string' ? v.logoUrl : '', hint: 'An https:// image.', errors: state.fields })}
<label for="redirectUris">Redirect URIs</label><p class="hint" id="redirectUris-hint">One per line, matched exactly. https, or http on localhost / 127.0.0.1 / [::1].</p>
<textarea id="redirectUris" name="redirectUris" aria-describedby="redirectUris-hint">${typeof v.redirectUris === 'string' ? v.redirectUris : ''}</textarea>
${state.fields?.filter((f) => f.path === 'redirectUris').map((f) => html`<p class="error" role="alert">${f.message}</p>`) ?? ''}
<label for="kind">Kind</label><select id="kind" name="kind"><option value="confidential">Confidential (a server that keeps a secret)</option><option value="public"${v.kind === 'public' ? html` selected` : ''}>Public (a browser or desktop app: PKCE only, no secret)</option></select>
<button type="submit">Register app</button></form>`;
      return page(req, reply, 'Apps', body, status);
    }

    app.get('/account/apps', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      return session ? appsPage(req, reply, session) : reply;
    });

    const secretNotice = (name: string, clientId: string, secret: string | undefined) =>
      notice(
        html`<strong>${name}</strong>: client id <code>${clientId}</code>.${
          secret ? html` Copy the client secret now: it is shown this once.<span class="secret">${secret}</span>` : ' A public app has no secret; it uses PKCE.'
        }`,
        'ok',
      );

    app.post('/account/apps', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      const body = bodyOf(req);
      helpers.checkCsrf(req, body._csrf);
      try {
        const made = await clients.createApp(session, { name: str(body, 'name'), logoUrl: str(body, 'logoUrl'), redirectUris: str(body, 'redirectUris'), kind: str(body, 'kind') as never });
        return appsPage(req, reply, session, { ok: secretNotice(made.app.name, made.app.clientId, made.clientSecret) }, 201);
      } catch (e) {
        const f = formError(e);
        return appsPage(req, reply, session, { message: f.fields ? undefined : f.message, fields: f.fields, values: body }, f.status);
      }
    });

    app.post('/account/apps/:id/rotate-secret', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      helpers.checkCsrf(req, bodyOf(req)._csrf);
      try {
        const made = await clients.rotateSecret(session, (req.params as { id: string }).id);
        return appsPage(req, reply, session, { ok: secretNotice(made.app.name, made.app.clientId, made.clientSecret) });
      } catch (e) {
        const f = formError(e);
        return appsPage(req, reply, session, { message: f.message }, f.status);
      }
    });

    app.post('/account/apps/:id/delete', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      helpers.checkCsrf(req, bodyOf(req)._csrf);
      try {
        await clients.deleteApp(session, (req.params as { id: string }).id);
        return reply.redirect('/account/apps', 303);
      } catch (e) {
        const f = formError(e);
        return appsPage(req, reply, session, { message: f.message }, f.status);
      }
    });

    // ---- approved apps -------------------------------------------------------------------
    async function approvedPage(req: FastifyRequest, reply: FastifyReply, session: SessionContext, state: { message?: string } = {}, status = 200) {
      const grants = await oauth.listApprovedApps(session);
      const csrf = helpers.csrfToken(req, reply);
      const body = html`${state.message ? notice(state.message, 'bad') : ''}<p>Apps and devices you let act for an organisation. Revoking stops them at once.</p>${
        grants.length
          ? html`<table><thead><tr><th>App</th><th>Organisation</th><th>Approved</th><th>Last used</th><th></th></tr></thead><tbody>${grants.map(
              (g) => html`<tr><td>${g.clientName}${g.clientOrigin === 'dynamic' ? html`<br><span class="muted">registered itself</span>` : ''}</td><td>${g.organizationName}</td><td>${fmt(g.createdAt)}</td><td>${fmt(g.lastUsedAt)}</td><td><form class="inline" method="post" action="/account/approved-apps/${g.id}/revoke">${csrfField(csrf)}<button type="submit" class="danger">Revoke</button></form></td></tr>`,
            )}</tbody></table>`
          : html`<p class="muted">You have not approved any app.</p>`
      }`;
      return page(req, reply, 'Approved apps', body, status);
    }

    app.get('/account/approved-apps', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      return session ? approvedPage(req, reply, session) : reply;
    });

    app.post('/account/approved-apps/:id/revoke', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      helpers.checkCsrf(req, bodyOf(req)._csrf);
      try {
        await oauth.revokeApprovedApp(session, (req.params as { id: string }).id);
        return reply.redirect('/account/approved-apps', 303);
      } catch (e) {
        const f = formError(e);
        return approvedPage(req, reply, session, { message: f.message }, f.status);
      }
    });

  };
}
