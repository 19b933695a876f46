import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { MEMBER_ROLES } from '../../db/schema/index.js';
import { AppError, type FieldError } from '../../errors.js';
import { csrfField, html, inputField, layout, loginRedirect, notice, safeNext, sendPage, type Html, type PageNav } from '../../http/pages.js';
import type { SessionHelpers } from '../../http/session.js';
import { PASSWORD_MIN_LENGTH } from '../../lib/passwords.js';
import type { SessionContext } from '../sessions/sessions.service.js';
import type { AccountsService, Client } from './accounts.service.js';
import {
  ApiKeyNameSchema,
  ChangePasswordSchema,
  ForgotPasswordSchema,
  InviteSchema,
  LogInSchema,
  OrganizationNameSchema,
  ResetPasswordSchema,
  RoleSchema,
  SignUpSchema,
} from './accounts.schemas.js';

type Body = Record<string, unknown>;

export const bodyOf = (req: FastifyRequest): Body => (req.body && typeof req.body === 'object' ? (req.body as Body) : {});
export const str = (body: Body, key: string): string => (typeof body[key] === 'string' ? (body[key]) : '');
export const clientOf = (req: FastifyRequest): Client => ({ ip: req.ip, userAgent: req.headers['user-agent'] });

export function zodFields(error: z.ZodError): FieldError[] {
  return error.issues.map((i) => ({ path: i.path.join('.') || 'form', message: i.message }));
}

/** A refusal a form shows on the form itself (a 4xx); anything else goes to the error page. */
export function formError(e: unknown): { status: number; message: string; fields?: FieldError[]; headers?: Record<string, string> } {
  if (e instanceof AppError && e.status < 500 && e.code !== 'CSRF_FAILED') return { status: e.status, message: e.message, fields: e.extra.fields, headers: e.extra.headers };
  throw e;
}

export interface PageDeps {
  /** where a person lands after signing in: the calendar app when it is built, else /account */
  home: string;
  accounts: AccountsService;
  helpers: SessionHelpers;
  nav(req: FastifyRequest): Promise<PageNav>;
}

/** The signed-in person, or a redirect to sign in that comes back here. */
export function signedIn(req: FastifyRequest, reply: FastifyReply): SessionContext | undefined {
  if (req.session) return req.session;
  void loginRedirect(req, reply);
  return undefined;
}

const fmt = (d: Date | string | null) => (d ? new Date(d).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '—');

/** Sign-up, sign-in, passwords, organisations, members, invitations and API keys (issue 15). */
export function accountPages(deps: PageDeps) {
  const { accounts, helpers } = deps;

  async function page(req: FastifyRequest, reply: FastifyReply, title: string, body: Html, status = 200, tabTitle = title) {
    return sendPage(reply, layout(title, await deps.nav(req), body, tabTitle), status);
  }

  return async (app: FastifyInstance) => {
    // Without the calendar app built, `/` is the account page (with it, `/` is the app).
    if (deps.home !== '/') app.get('/', { schema: { hide: true } }, async (req, reply) => reply.redirect(req.session ? '/account' : '/account/login', 302));

    // ---- sign-up -------------------------------------------------------------------------
    async function signupPage(req: FastifyRequest, reply: FastifyReply, state: { values?: Body; message?: string; fields?: FieldError[] } = {}, status = 200) {
      const v = state.values ?? {};
      const invite = str(v, 'invite') || (typeof (req.query as Body).invite === 'string' ? str(req.query as Body, 'invite') : '');
      const mode = await accounts.signupMode();
      let intro: Html | string = '';
      let invitation: Awaited<ReturnType<AccountsService['describeInvitation']>> | undefined;
      if (invite) {
        invitation = await accounts.describeInvitation(invite).catch(() => undefined);
        intro = invitation
          ? notice(html`You are invited to join <strong>${invitation.organizationName}</strong> as ${invitation.role}.`)
          : notice('This invitation link is not valid any more (used, revoked or expired): ask for a new one.', 'bad');
      } else if (mode.first) {
        intro = notice('This is the first account of this Tidings: it will own the deployment and its organisations.');
      } else if (mode.mode !== 'open') {
        intro = notice(mode.mode === 'off' ? 'This deployment does not accept new accounts; ask its administrator.' : 'New accounts are by invitation only: open the invitation link you were sent.', 'bad');
      }
      const orgField = !invitation && (mode.first || mode.mode === 'open')
        ? inputField({ label: 'Organisation name', name: 'organization', value: str(v, 'organization'), hint: mode.first ? 'Used only if the deployment has no organisation yet.' : 'Your own organisation, which you will own.', errors: state.fields })
        : '';
      const body = html`${intro}${state.message ? notice(state.message, 'bad') : ''}
<form method="post" action="/account/signup" novalidate>
${csrfField(helpers.csrfToken(req, reply))}<input type="hidden" name="invite" value="${invite}">
${inputField({ label: 'Email', name: 'email', type: 'email', value: str(v, 'email') || invitation?.email || '', autocomplete: 'email', required: true, errors: state.fields })}
${inputField({ label: 'Your name', name: 'name', value: str(v, 'name'), autocomplete: 'name', errors: state.fields })}
${inputField({ label: 'Password', name: 'password', type: 'password', autocomplete: 'new-password', required: true, hint: `At least ${PASSWORD_MIN_LENGTH} characters.`, errors: state.fields })}
${orgField}
<button type="submit">Create account</button></form>
<p>Have an account? <a href="/account/login">Sign in</a>.</p>`;
      return page(req, reply, 'Create your account', body, status);
    }

    app.get('/account/signup', { schema: { hide: true } }, (req, reply) => signupPage(req, reply));
    app.post('/account/signup', { schema: { hide: true } }, async (req, reply) => {
      const body = bodyOf(req);
      helpers.checkCsrf(req, body._csrf);
      const parsed = SignUpSchema.safeParse({ ...body, invite: str(body, 'invite') || undefined });
      if (!parsed.success) return signupPage(req, reply, { values: body, fields: zodFields(parsed.error) }, 400);
      try {
        const made = await accounts.signUp(parsed.data, clientOf(req));
        helpers.setSession(reply, made.session!.token);
        return reply.redirect(deps.home, 303);
      } catch (e) {
        const f = formError(e);
        return signupPage(req, reply, { values: body, message: f.fields ? undefined : f.message, fields: f.fields }, f.status);
      }
    });

    // ---- sign-in / sign-out --------------------------------------------------------------
    async function loginPage(req: FastifyRequest, reply: FastifyReply, state: { email?: string; next?: string; message?: string; fields?: FieldError[] } = {}, status = 200) {
      const next = state.next ?? safeNext((req.query as Body).next) ?? '';
      const body = html`${state.message ? notice(state.message, 'bad') : ''}
<form method="post" action="/account/login" novalidate>
${csrfField(helpers.csrfToken(req, reply))}<input type="hidden" name="next" value="${next}">
${inputField({ label: 'Email', name: 'email', type: 'email', value: state.email ?? '', autocomplete: 'username', required: true, errors: state.fields })}
${inputField({ label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password', required: true, errors: state.fields })}
<button type="submit">Sign in</button></form>
<p><a href="/account/forgot">Forgot your password?</a> · <a href="/account/signup">Create an account</a></p>`;
      return page(req, reply, 'Sign in to Tidings', body, status);
    }

    app.get('/account/login', { schema: { hide: true } }, async (req, reply) => {
      // A fresh deployment has nobody to sign in: its first visitor makes the owner account.
      if ((await accounts.signupMode()).first) return reply.redirect('/account/signup', 303);
      return loginPage(req, reply);
    });
    app.post('/account/login', { schema: { hide: true } }, async (req, reply) => {
      const body = bodyOf(req);
      helpers.checkCsrf(req, body._csrf);
      const next = safeNext(body.next);
      const parsed = LogInSchema.safeParse(body);
      if (!parsed.success) return loginPage(req, reply, { email: str(body, 'email'), next, fields: zodFields(parsed.error) }, 400);
      try {
        const started = await accounts.logIn(parsed.data, clientOf(req));
        // A session cookie the browser had before is replaced, never reused (session fixation).
        helpers.setSession(reply, started.token);
        return reply.redirect(next ?? deps.home, 303);
      } catch (e) {
        const f = formError(e);
        if (f.headers) void reply.headers(f.headers);
        return loginPage(req, reply, { email: str(body, 'email'), next, message: f.message }, f.status);
      }
    });

    app.post('/account/logout', { schema: { hide: true } }, async (req, reply) => {
      helpers.checkCsrf(req, bodyOf(req)._csrf);
      if (req.session) await accounts.logOut(req.session);
      helpers.clearSession(reply);
      return reply.redirect('/account/login', 303);
    });

    // ---- passwords -----------------------------------------------------------------------
    async function forgotPage(req: FastifyRequest, reply: FastifyReply, state: { sent?: boolean; message?: string; fields?: FieldError[]; email?: string } = {}, status = 200) {
      const body = state.sent
        ? notice('If an account has this address, a link to choose a new password is on its way. It works once, for an hour.', 'ok')
        : html`${state.message ? notice(state.message, 'bad') : ''}<form method="post" action="/account/forgot" novalidate>
${csrfField(helpers.csrfToken(req, reply))}
${inputField({ label: 'Email', name: 'email', type: 'email', value: state.email ?? '', autocomplete: 'email', required: true, errors: state.fields })}
<button type="submit">Send the link</button></form>`;
      return page(req, reply, 'Reset your password', body, status);
    }

    app.get('/account/forgot', { schema: { hide: true } }, (req, reply) => forgotPage(req, reply));
    app.post('/account/forgot', { schema: { hide: true } }, async (req, reply) => {
      const body = bodyOf(req);
      helpers.checkCsrf(req, body._csrf);
      const parsed = ForgotPasswordSchema.safeParse(body);
      if (!parsed.success) return forgotPage(req, reply, { fields: zodFields(parsed.error), email: str(body, 'email') }, 400);
      try {
        await accounts.requestPasswordReset(parsed.data.email, clientOf(req));
        return forgotPage(req, reply, { sent: true });
      } catch (e) {
        const f = formError(e);
        if (f.headers) void reply.headers(f.headers);
        return forgotPage(req, reply, { message: f.message, email: parsed.data.email }, f.status);
      }
    });

    async function resetPage(req: FastifyRequest, reply: FastifyReply, token: string, state: { message?: string; fields?: FieldError[] } = {}, status = 200) {
      let who: { email: string } | undefined;
      try {
        who = await accounts.checkResetLink(token);
      } catch (e) {
        return page(req, reply, 'Choose a new password', notice(formError(e).message, 'bad'), 404);
      }
      const body = html`${state.message ? notice(state.message, 'bad') : ''}<p>For <strong>${who.email}</strong>. Every session of this account ends when the password changes.</p>
<form method="post" action="/account/reset" novalidate>
${csrfField(helpers.csrfToken(req, reply))}<input type="hidden" name="token" value="${token}">
${inputField({ label: 'New password', name: 'password', type: 'password', autocomplete: 'new-password', required: true, hint: `At least ${PASSWORD_MIN_LENGTH} characters.`, errors: state.fields })}
<button type="submit">Set the password</button></form>`;
      return page(req, reply, 'Choose a new password', body, status);
    }

    app.get('/account/reset', { schema: { hide: true } }, (req, reply) => resetPage(req, reply, str(req.query as Body, 'token')));
    app.post('/account/reset', { schema: { hide: true } }, async (req, reply) => {
      const body = bodyOf(req);
      helpers.checkCsrf(req, body._csrf);
      const parsed = ResetPasswordSchema.safeParse(body);
      if (!parsed.success) return resetPage(req, reply, str(body, 'token'), { fields: zodFields(parsed.error) }, 400);
      try {
        const started = await accounts.resetPassword(parsed.data, clientOf(req));
        helpers.setSession(reply, started.token);
        return reply.redirect('/account?changed=password', 303);
      } catch (e) {
        const f = formError(e);
        return resetPage(req, reply, parsed.data.token, { message: f.message, fields: f.fields }, f.status);
      }
    });

    // ---- the account page ----------------------------------------------------------------
    async function accountPage(req: FastifyRequest, reply: FastifyReply, session: SessionContext, state: { message?: string; ok?: string; fields?: FieldError[] } = {}, status = 200) {
      const { memberships, current } = await accounts.overview(session);
      const csrf = helpers.csrfToken(req, reply);
      const changed = (req.query as Body).changed === 'password' ? notice('Your password is changed; other sessions were signed out.', 'ok') : '';
      const orgs = memberships.length
        ? html`<table><thead><tr><th>Organisation</th><th>Your role</th><th></th></tr></thead><tbody>${memberships.map(
            (m) => html`<tr><td>${m.name}</td><td>${m.role}</td><td>${
              m.organizationId === current?.organizationId
                ? html`<span class="muted">working in it</span>`
                : html`<form class="inline" method="post" action="/account/switch">${csrfField(csrf)}<input type="hidden" name="organizationId" value="${m.organizationId}"><button type="submit" class="secondary">Switch to it</button></form>`
            }</td></tr>`,
          )}</tbody></table>`
        : notice('You are not a member of any organisation yet: accept an invitation, or create one below.');
      const body = html`${changed}${state.ok ? notice(state.ok, 'ok') : ''}${state.message ? notice(state.message, 'bad') : ''}
<p>Signed in as <strong>${session.email}</strong>${session.name ? html` (${session.name})` : ''}.</p>
<h2>Organisations</h2>${orgs}
<form method="post" action="/account/organizations" novalidate>${csrfField(csrf)}
${inputField({ label: 'New organisation', name: 'name', errors: state.fields, hint: 'You will own it.' })}
<button type="submit" class="secondary">Create organisation</button></form>
<h2>Password</h2>
<form method="post" action="/account/password" novalidate>${csrfField(csrf)}
${inputField({ label: 'Current password', name: 'current', type: 'password', autocomplete: 'current-password', required: true, errors: state.fields })}
${inputField({ label: 'New password', name: 'password', type: 'password', autocomplete: 'new-password', required: true, hint: `At least ${PASSWORD_MIN_LENGTH} characters. Your other sessions will be signed out.`, errors: state.fields })}
<button type="submit">Change password</button></form>
<h2>Sessions</h2>
<form class="inline" method="post" action="/account/logout">${csrfField(csrf)}<button type="submit" class="secondary">Sign out</button></form>
<form class="inline" method="post" action="/account/logout-everywhere">${csrfField(csrf)}<button type="submit" class="danger">Sign out everywhere</button></form>`;
      return page(req, reply, 'Your account', body, status);
    }

    app.get('/account', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      return session ? accountPage(req, reply, session) : reply;
    });

    app.post('/account/password', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      const body = bodyOf(req);
      helpers.checkCsrf(req, body._csrf);
      const parsed = ChangePasswordSchema.safeParse(body);
      if (!parsed.success) return accountPage(req, reply, session, { fields: zodFields(parsed.error) }, 400);
      try {
        const started = await accounts.changePassword(session, parsed.data, clientOf(req));
        helpers.setSession(reply, started.token);
        return reply.redirect('/account?changed=password', 303);
      } catch (e) {
        const f = formError(e);
        if (f.headers) void reply.headers(f.headers);
        return accountPage(req, reply, session, { message: f.fields ? undefined : f.message, fields: f.fields }, f.status);
      }
    });

    app.post('/account/logout-everywhere', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      helpers.checkCsrf(req, bodyOf(req)._csrf);
      await accounts.logOutEverywhere(session);
      helpers.clearSession(reply);
      return reply.redirect('/account/login', 303);
    });

    app.post('/account/switch', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      const body = bodyOf(req);
      helpers.checkCsrf(req, body._csrf);
      await accounts.switchOrganization(session, str(body, 'organizationId'));
      return reply.redirect(safeNext(body.next) ?? '/account', 303);
    });

    app.post('/account/organizations', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      const body = bodyOf(req);
      helpers.checkCsrf(req, body._csrf);
      const parsed = OrganizationNameSchema.safeParse(body.name);
      if (!parsed.success) return accountPage(req, reply, session, { fields: [{ path: 'name', message: parsed.error.issues[0]!.message }] }, 400);
      await accounts.createOrganization(session, parsed.data);
      return reply.redirect('/account/organization', 303);
    });

    // ---- organisation: members and invitations ------------------------------------------
    async function organizationPage(req: FastifyRequest, reply: FastifyReply, session: SessionContext, state: { message?: string; ok?: Html; fields?: FieldError[] } = {}, status = 200) {
      let data: Awaited<ReturnType<AccountsService['listMembers']>>;
      try {
        data = await accounts.listMembers(session);
      } catch (e) {
        return page(req, reply, 'Organisation', notice(formError(e).message, 'bad'), 403);
      }
      const { me, members, invitations } = data;
      const csrf = helpers.csrfToken(req, reply);
      const manage = me.role === 'owner' || me.role === 'admin';
      const roleSelect = (name: string, selected: string) =>
        html`<select name="${name}" aria-label="Role">${MEMBER_ROLES.filter((r) => me.role === 'owner' || r !== 'owner').map((r) => html`<option value="${r}"${r === selected ? html` selected` : ''}>${r}</option>`)}</select>`;
      const rows = members.map(
        (m) => html`<tr><td>${m.email}${m.name ? html`<br><span class="muted">${m.name}</span>` : ''}</td><td>${
          manage && m.userId !== session.userId && (me.role === 'owner' || m.role !== 'owner')
            ? html`<form class="inline" method="post" action="/account/organization/members/${m.userId}/role">${csrfField(csrf)}${roleSelect('role', m.role)}<button type="submit" class="secondary">Change</button></form>`
            : m.role
        }</td><td>${fmtDate(m.since)}</td><td>${
          m.userId === session.userId
            ? html`<form class="inline" method="post" action="/account/organization/members/${m.userId}/remove">${csrfField(csrf)}<button type="submit" class="danger">Leave</button></form>`
            : manage && (me.role === 'owner' || m.role !== 'owner')
              ? html`<form class="inline" method="post" action="/account/organization/members/${m.userId}/remove">${csrfField(csrf)}<button type="submit" class="danger">Remove</button></form>`
              : ''
        }</td></tr>`,
      );
      const invites = manage
        ? html`<h2>Invite someone</h2>
<form method="post" action="/account/organization/invitations" novalidate>${csrfField(csrf)}
${inputField({ label: 'Email (optional)', name: 'email', type: 'email', hint: 'With an address, the invitation is mailed (when mail is set up) and only that address can accept it. Without one, anyone with the link can.', errors: state.fields })}
<label for="role">Role</label>${html`<select id="role" name="role">${MEMBER_ROLES.filter((r) => me.role === 'owner' || r !== 'owner').map((r) => html`<option value="${r}"${r === 'member' ? html` selected` : ''}>${r}</option>`)}</select>`}
<button type="submit">Create invitation link</button></form>
${invitations.length ? html`<h2>Open invitations</h2><table><thead><tr><th>For</th><th>Role</th><th>Expires</th><th></th></tr></thead><tbody>${invitations.map(
            (i) => html`<tr><td>${i.email ?? html`<span class="muted">anyone with the link</span>`}</td><td>${i.role}</td><td>${fmtDate(i.expiresAt)}</td><td><form class="inline" method="post" action="/account/organization/invitations/${i.id}/revoke">${csrfField(csrf)}<button type="submit" class="danger">Revoke</button></form></td></tr>`,
          )}</tbody></table>` : ''}`
        : html`<p class="muted">Owners and admins invite people and change roles.</p>`;
      const body = html`${state.ok ?? ''}${state.message ? notice(state.message, 'bad') : ''}
<p>You are ${me.role === 'admin' || me.role === 'owner' ? 'an' : 'a'} <strong>${me.role}</strong> of <strong>${me.name}</strong>.</p>
<h2>Members</h2><table><thead><tr><th>Person</th><th>Role</th><th>Since</th><th></th></tr></thead><tbody>${rows}</tbody></table>${invites}`;
      return page(req, reply, me.name, body, status, `${me.name} · Organisation`);
    }

    app.get('/account/organization', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      return session ? organizationPage(req, reply, session) : reply;
    });

    app.post('/account/organization/invitations', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      const body = bodyOf(req);
      helpers.checkCsrf(req, body._csrf);
      const parsed = InviteSchema.safeParse(body);
      if (!parsed.success) return organizationPage(req, reply, session, { fields: zodFields(parsed.error) }, 400);
      try {
        const made = await accounts.invite(session, parsed.data);
        const ok = notice(
          html`Invitation created${made.mailed ? html` and mailed to ${parsed.data.email}` : ''}. ${made.mailed ? 'You can also hand over' : 'Hand over'} this link (shown once; it works once, for 7 days):<span class="secret">${made.link}</span>`,
          'ok',
        );
        return organizationPage(req, reply, session, { ok });
      } catch (e) {
        const f = formError(e);
        return organizationPage(req, reply, session, { message: f.message, fields: f.fields }, f.status);
      }
    });

    const memberAction = (path: string, run: (session: SessionContext, id: string, body: Body) => Promise<unknown>, done: (session: SessionContext, id: string) => string) =>
      app.post(path, { schema: { hide: true } }, async (req, reply) => {
        const session = signedIn(req, reply);
        if (!session) return reply;
        const body = bodyOf(req);
        helpers.checkCsrf(req, body._csrf);
        const id = (req.params as { id: string }).id;
        try {
          await run(session, id, body);
          return reply.redirect(done(session, id), 303);
        } catch (e) {
          const f = formError(e);
          return organizationPage(req, reply, session, { message: f.message }, f.status);
        }
      });

    memberAction('/account/organization/invitations/:id/revoke', (s, id) => accounts.revokeInvitation(s, id), () => '/account/organization');
    memberAction(
      '/account/organization/members/:id/role',
      async (s, id, body) => {
        const role = RoleSchema.safeParse(body.role);
        if (!role.success) throw new AppError('VALIDATION_FAILED', 'Choose owner, admin or member', { fields: [{ path: 'role', message: 'Choose owner, admin or member' }] });
        await accounts.changeRole(s, id, role.data);
      },
      () => '/account/organization',
    );
    memberAction('/account/organization/members/:id/remove', (s, id) => accounts.removeMember(s, id), (s, id) => (id === s.userId ? '/account' : '/account/organization'));

    // ---- accepting an invitation --------------------------------------------------------
    app.get('/account/invite/:token', { schema: { hide: true } }, async (req, reply) => {
      const { token } = req.params as { token: string };
      let invitation;
      try {
        invitation = await accounts.describeInvitation(token);
      } catch (e) {
        return page(req, reply, 'Invitation', notice(formError(e).message, 'bad'), 404);
      }
      const what = html`<p>You are invited to join <strong>${invitation.organizationName}</strong> as ${invitation.role}${invitation.email ? html` (for ${invitation.email})` : ''}.</p>`;
      if (!req.session) {
        const back = encodeURIComponent(`/account/invite/${token}`);
        return page(req, reply, 'Invitation', html`${what}<p><a href="/account/signup?invite=${token}">Create an account</a> to accept, or <a href="/account/login?next=${back}">sign in</a> if you have one.</p>`);
      }
      return page(
        req,
        reply,
        'Invitation',
        html`${what}<form method="post" action="/account/invite/${token}">${csrfField(helpers.csrfToken(req, reply))}<button type="submit">Join ${invitation.organizationName}</button></form>`,
      );
    });

    app.post('/account/invite/:token', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      helpers.checkCsrf(req, bodyOf(req)._csrf);
      try {
        await accounts.acceptInvitation(session, (req.params as { token: string }).token);
        return reply.redirect('/account/organization', 303);
      } catch (e) {
        const f = formError(e);
        return page(req, reply, 'Invitation', notice(f.message, 'bad'), f.status);
      }
    });

    // ---- developer settings: API keys ---------------------------------------------------
    async function keysPage(req: FastifyRequest, reply: FastifyReply, session: SessionContext, state: { ok?: Html; message?: string; fields?: FieldError[] } = {}, status = 200) {
      let data;
      try {
        data = await accounts.listApiKeys(session);
      } catch (e) {
        return page(req, reply, 'API keys', notice(formError(e).message, 'bad'), 403);
      }
      const csrf = helpers.csrfToken(req, reply);
      const live = data.keys.filter((k) => !k.revokedAt);
      const body = html`${state.ok ?? ''}${state.message ? notice(state.message, 'bad') : ''}
<p>Keys of <strong>${data.organization.name}</strong> for the public API (<code>Authorization: &lt;key&gt;</code>). A key acts for the whole organisation.</p>
<form method="post" action="/account/api-keys" novalidate>${csrfField(csrf)}
${inputField({ label: 'Name', name: 'name', hint: 'What the key is for, e.g. "n8n" or "CI".', errors: state.fields })}
<button type="submit">Create key</button></form>
<h2>Keys</h2>${
        live.length
          ? html`<table><thead><tr><th>Name</th><th>Key</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>${live.map(
              (k) => html`<tr><td>${k.name}</td><td><code>${k.prefix}…</code></td><td>${fmt(k.createdAt)}</td><td>${fmt(k.lastUsedAt)}</td><td><form class="inline" method="post" action="/account/api-keys/${k.id}/revoke">${csrfField(csrf)}<button type="submit" class="danger">Revoke</button></form></td></tr>`,
            )}</tbody></table>`
          : html`<p class="muted">No keys yet.</p>`
      }`;
      return page(req, reply, 'API keys', body, status);
    }

    app.get('/account/api-keys', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      return session ? keysPage(req, reply, session) : reply;
    });

    app.post('/account/api-keys', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      const body = bodyOf(req);
      helpers.checkCsrf(req, body._csrf);
      const parsed = ApiKeyNameSchema.safeParse(body);
      if (!parsed.success) return keysPage(req, reply, session, { fields: zodFields(parsed.error) }, 400);
      try {
        const made = await accounts.createApiKey(session, parsed.data.name);
        return keysPage(req, reply, session, { ok: notice(html`Key <strong>${made.key.name}</strong> created. Copy it now: it is shown this once.<span class="secret">${made.apiKey}</span>`, 'ok') }, 201);
      } catch (e) {
        const f = formError(e);
        return keysPage(req, reply, session, { message: f.message }, f.status);
      }
    });

    app.post('/account/api-keys/:id/revoke', { schema: { hide: true } }, async (req, reply) => {
      const session = signedIn(req, reply);
      if (!session) return reply;
      helpers.checkCsrf(req, bodyOf(req)._csrf);
      try {
        await accounts.revokeApiKey(session, (req.params as { id: string }).id);
        return reply.redirect('/account/api-keys', 303);
      } catch (e) {
        const f = formError(e);
        return keysPage(req, reply, session, { message: f.message }, f.status);
      }
    });
  };
}

const fmtDate = fmt;
