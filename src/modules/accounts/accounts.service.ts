import { NO_ACTIVITY, type ActivityEntry, type ActivityRecorder } from '../../core/activity.js';
import { runAsActor } from '../../core/actor.js';
import type { Tx } from '../../db/client.js';
import type { MemberRole } from '../../db/schema/index.js';
import { AppError, fieldError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../lib/mailer.js';
import { hashPassword, verifyNothing, verifyPassword } from '../../lib/passwords.js';
import { isUuid } from '../../lib/ids.js';
import { hashCredential, newOpaqueToken } from '../../lib/tokens.js';
import type { FailureThrottle } from '../../rate-limit/failure-throttle.js';
import type { OrganizationsService } from '../organizations/organizations.service.js';
import type { SessionContext, SessionsService } from '../sessions/sessions.service.js';
import type { AccountsRepository, UserRow } from './accounts.repository.js';
import type { SignUpInput } from './accounts.schemas.js';

const RESET_LINK_MS = 60 * 60_000;
const SET_PASSWORD_LINK_MS = 24 * 60 * 60_000;
const INVITATION_MS = 7 * 24 * 60 * 60_000;

const INVITATION_GONE = () => new AppError('NOT_FOUND', 'This invitation link is not valid any more (used, revoked or expired): ask for a new one');
const RESET_LINK_GONE = () => new AppError('NOT_FOUND', 'This link is not valid any more (used or expired): ask for a new one');

const ROLE_RANK: Record<MemberRole, number> = { contributor: 0, member: 1, admin: 2, owner: 3 };

/** Where a request comes from, for sessions and throttles. */
export interface Client {
  ip: string;
  userAgent?: string;
}

export interface Membership {
  organizationId: string;
  name: string;
  role: MemberRole;
}

/**
 * People and organisations (issue 15): sign-up, sign-in, passwords, members, roles,
 * invitations, and the developer settings (API keys) an owner or admin manages.
 */
export function createAccountsService(deps: {
  accounts: AccountsRepository;
  sessions: SessionsService;
  organizations: OrganizationsService;
  /** revokes what a person granted apps in an organisation, in the caller's transaction (they left it) */
  revokeAppAccess(tx: Tx, filter: { organizationId: string; userId: string }, reason: string): Promise<void>;
  loginThrottle: FailureThrottle;
  resetThrottle: FailureThrottle;
  mailer: Mailer;
  clock: Clock;
  publicUrl: string;
  signup: 'open' | 'invite' | 'off';
  /** the activity log (none: nothing recorded) */
  activity?: ActivityRecorder;
}) {
  const { accounts, sessions, clock } = deps;
  const activity = deps.activity ?? NO_ACTIVITY;
  /** Records as the person (the account pages are outside the API's actor hook), in `tx` when given. */
  const recordAs = (person: { id: string; name: string; email: string }, entry: ActivityEntry, tx?: Tx) =>
    runAsActor({ kind: 'user', id: person.id, name: person.name.trim() || person.email }, () => activity.record(entry, tx));
  const now = () => new Date(clock.now());

  function throttled(wait: number): AppError {
    const minutes = Math.ceil(wait / 60);
    return new AppError('LOGIN_THROTTLED', `Too many attempts; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`, {
      headers: { 'retry-after': String(wait) },
    });
  }

  async function firstOrganization(userId: string): Promise<string | null> {
    const [first] = await accounts.listMemberships(userId);
    return first?.organizationId ?? null;
  }

  async function startSession(user: { id: string }, client: Client, organizationId?: string | null) {
    return sessions.start({
      userId: user.id,
      organizationId: organizationId === undefined ? await firstOrganization(user.id) : organizationId,
      userAgent: client.userAgent,
      ip: client.ip,
    });
  }

  /** The membership the session works in; FORBIDDEN below `atLeast`. */
  async function requireRole(session: SessionContext, atLeast: MemberRole): Promise<Membership> {
    const membership = session.organizationId ? await accounts.findMembership(session.organizationId, session.userId) : undefined;
    if (!membership) throw new AppError('FORBIDDEN', 'You are not a member of an organisation yet: accept an invitation or create one');
    if (ROLE_RANK[membership.role] < ROLE_RANK[atLeast]) {
      throw new AppError('FORBIDDEN', `This needs the ${atLeast} role in ${membership.name}; you are ${membership.role === 'admin' ? 'an' : 'a'} ${membership.role}`);
    }
    return membership;
  }

  async function openInvitation(token: string) {
    const found = await accounts.findOpenInvitation(hashCredential(token), now());
    if (!found) throw INVITATION_GONE();
    return found;
  }

  async function sendResetLink(user: Pick<UserRow, 'id' | 'email'>, lifetimeMs: number, purpose: 'reset' | 'set') {
    const token = newOpaqueToken();
    await accounts.insertPasswordReset({ userId: user.id, tokenHash: hashCredential(token), expiresAt: new Date(clock.now() + lifetimeMs) });
    const link = `${deps.publicUrl}/account/reset?token=${token}`;
    const text =
      purpose === 'reset'
        ? `Someone asked to reset the password of your Tidings account (${user.email}).\n\nChoose a new password here (the link works once, for an hour):\n${link}\n\nIf it was not you, ignore this message; your password stays as it is.\n`
        : `A Tidings account was made for ${user.email}.\n\nChoose your password here (the link works once, for 24 hours):\n${link}\n`;
    return { link, text };
  }

  /**
   * Makes an account and signs it in. The first account of a deployment owns it: it becomes
   * the owner of every organisation that has no members yet (made with the admin CLI), or of
   * a new one. Later accounts follow SIGNUP: an invitation joins its organisation; open
   * sign-up makes the person a new organisation of their own.
   */
async function signUp(input: SignUpInput, client: Client, opts: { viaAdmin?: boolean } = {}) {
    const invitation = input.invite ? await openInvitation(input.invite) : undefined;
    if (invitation?.invitation.email && invitation.invitation.email !== input.email) {
      throw fieldError('email', `This invitation is for ${invitation.invitation.email}; sign up with that address`);
    }
    const passwordHash = await hashPassword(input.password);
    const at = now();
    const { user, organizationId } = await accounts.transaction(async (tx) => {
      await accounts.lockSignups(tx);
      const first = (await accounts.countUsers(tx)) === 0;
      if (!first && !invitation && !opts.viaAdmin) {
        if (deps.signup === 'off') throw new AppError('SIGNUP_CLOSED', 'This deployment does not accept new accounts; ask its administrator');
        if (deps.signup === 'invite') throw new AppError('SIGNUP_CLOSED', 'This deployment accepts new accounts by invitation only: open the invitation link you were sent');
      }
      const user = await accounts.insertUser(tx, { email: input.email, name: input.name, passwordHash, ...(first ? { deploymentOwnerSince: at } : {}) });
      if (!user) throw new AppError('CONFLICT', 'An account with this email address exists already: sign in instead', { fields: [{ path: 'email', message: 'An account with this email address exists already' }] });
      if (invitation) {
        if (!(await accounts.acceptInvitation(tx, invitation.invitation.id, user.id, at))) throw INVITATION_GONE();
        await accounts.insertMembership(tx, { organizationId: invitation.invitation.organizationId, userId: user.id, role: invitation.invitation.role });
        await recordAs(user, { organizationId: invitation.invitation.organizationId, action: 'member.joined', targetKind: 'member', targetId: user.id, targetName: user.name || user.email, details: { role: invitation.invitation.role, invitation: invitation.invitation.id } }, tx);
        return { user, organizationId: invitation.invitation.organizationId };
      }
      const adopt = first ? await accounts.organizationsWithoutMembers(tx) : [];
      if (adopt.length > 0) {
        for (const org of adopt) await accounts.insertMembership(tx, { organizationId: org.id, userId: user.id, role: 'owner' });
        return { user, organizationId: adopt[0]!.id };
      }
      const org = await accounts.insertOrganization(tx, input.organization || `${input.name || input.email.split('@')[0]}'s organisation`);
      await accounts.insertMembership(tx, { organizationId: org.id, userId: user.id, role: 'owner' });
      return { user, organizationId: org.id };
    });
    const session = opts.viaAdmin ? undefined : await startSession(user, client, organizationId);
    return { user: { id: user.id, email: user.email, name: user.name }, organizationId, session };
  }

  return {
    requireRole,

    /** What the sign-up page offers: the first account of the deployment, or per SIGNUP. */
    async signupMode(): Promise<{ first: boolean; mode: 'open' | 'invite' | 'off' }> {
      return { first: (await accounts.countUsers()) === 0, mode: deps.signup };
    },

    signUp,

    /**
     * Signs in: a new session every time (the id is never reused, so one planted earlier is
     * worthless). Failures are throttled per account and per address; the answer and its timing
     * are the same for a wrong password and an unknown address.
     */
    async logIn(input: { email: string; password: string }, client: Client) {
      const keys = [`login:acct:${input.email}`, `login:ip:${client.ip}`];
      const wait = await deps.loginThrottle.waitSeconds(keys);
      if (wait > 0) throw throttled(wait);
      const user = await accounts.findUserByEmail(input.email);
      const ok = user ? await verifyPassword(user.passwordHash, input.password) : await verifyNothing(input.password);
      if (!user || !ok) {
        await deps.loginThrottle.recordFailure(keys);
        throw new AppError('INVALID_CREDENTIALS', 'Wrong email address or password');
      }
      return startSession(user, client);
    },

    logOut: (session: SessionContext) => sessions.end(session.id),

    /** Ends every session of the person, this one included. */
    logOutEverywhere: (session: SessionContext) => sessions.endAllOf(session.userId),

    /**
     * Changes the password after checking the current one (throttled like sign-in), ends every
     * other session, and replaces this one with a new session (answered: the new cookie token).
     */
    async changePassword(session: SessionContext, input: { current: string; password: string }, client: Client) {
      const keys = [`login:acct:${session.email}`, `login:ip:${client.ip}`];
      const wait = await deps.loginThrottle.waitSeconds(keys);
      if (wait > 0) throw throttled(wait);
      const user = await accounts.findUser(session.userId);
      if (!user || !(await verifyPassword(user.passwordHash, input.current))) {
        await deps.loginThrottle.recordFailure(keys);
        throw fieldError('current', 'This is not your current password');
      }
      const passwordHash = await hashPassword(input.password);
      await accounts.transaction(async (tx) => {
        await accounts.setPassword(tx, user.id, passwordHash, now());
        await sessions.endAllOf(user.id, undefined, tx);
      });
      return startSession(user, client, session.organizationId);
    },

    /**
     * Mails a one-time reset link (an hour). The answer is the same whether or not the address
     * has an account; requests are throttled per address and per client.
     */
    async requestPasswordReset(email: string, client: Client) {
      const keys = [`reset:acct:${email}`, `reset:ip:${client.ip}`];
      const wait = await deps.resetThrottle.waitSeconds(keys);
      if (wait > 0) throw throttled(wait);
      await deps.resetThrottle.recordFailure(keys);
      const user = await accounts.findUserByEmail(email);
      if (!user) return;
      const { text } = await sendResetLink(user, RESET_LINK_MS, 'reset');
      await deps.mailer.send({ to: user.email, subject: 'Reset your Tidings password', text });
    },

    /** The account a reset link is for, or NOT_FOUND when it was used or has expired. */
    async checkResetLink(token: string) {
      const found = await accounts.findOpenPasswordReset(hashCredential(token), now());
      if (!found) throw RESET_LINK_GONE();
      return { email: found.email };
    },

    /** Sets the password from a reset link (once), ends every session, and signs in anew. */
    async resetPassword(input: { token: string; password: string }, client: Client) {
      const found = await accounts.findOpenPasswordReset(hashCredential(input.token), now());
      if (!found) throw RESET_LINK_GONE();
      const passwordHash = await hashPassword(input.password);
      const at = now();
      const userId = found.reset.userId;
      await accounts.transaction(async (tx) => {
        if (!(await accounts.usePasswordReset(tx, found.reset.id, userId, at))) throw RESET_LINK_GONE();
        await accounts.setPassword(tx, userId, passwordHash, at);
        await sessions.endAllOf(userId, undefined, tx);
      });
      return startSession({ id: userId }, client);
    },

    /** The person's organisations and the one the session works in. */
    async overview(session: SessionContext) {
      const memberships = await accounts.listMemberships(session.userId);
      const current = memberships.find((m) => m.organizationId === session.organizationId);
      return { memberships, current };
    },

    /** Who is signed in, where they work, and their display preferences (the web app's `GET /me`). */
    async profile(session: SessionContext) {
      const user = await accounts.findUser(session.userId);
      if (!user) throw new AppError('SESSION_REQUIRED', 'Your account no longer exists');
      const memberships = await accounts.listMemberships(session.userId);
      const current = memberships.find((m) => m.organizationId === session.organizationId);
      return { user: { id: user.id, email: user.email, name: user.name, timezone: user.timezone }, current, memberships };
    },

    /** Display name and time zone (an IANA name such as Europe/Paris; null: the browser's own). */
    async updateProfile(session: SessionContext, patch: { name?: string; timezone?: string | null }) {
      if (patch.timezone) {
        try {
          new Intl.DateTimeFormat('en', { timeZone: patch.timezone });
        } catch {
          throw fieldError('timezone', `Unknown time zone "${patch.timezone}": use an IANA name such as Europe/Paris`);
        }
      }
      await accounts.setProfile(session.userId, patch, now());
    },

    async switchOrganization(session: SessionContext, organizationId: string) {
      const membership = isUuid(organizationId) ? await accounts.findMembership(organizationId, session.userId) : undefined;
      if (!membership) throw notFound('Organization');
      await sessions.switchOrganization(session.id, organizationId);
      return membership;
    },

    /** A new organisation owned by the person, switched to. */
    async createOrganization(session: SessionContext, name: string) {
      const org = await accounts.transaction(async (tx) => {
        const org = await accounts.insertOrganization(tx, name);
        await accounts.insertMembership(tx, { organizationId: org.id, userId: session.userId, role: 'owner' });
        return org;
      });
      await sessions.switchOrganization(session.id, org.id);
      return { id: org.id, name: org.name };
    },

    async listMembers(session: SessionContext) {
      const me = await requireRole(session, 'member');
      return { me, members: await accounts.listMembers(me.organizationId), invitations: ROLE_RANK[me.role] >= ROLE_RANK.admin ? await accounts.listOpenInvitations(me.organizationId, now()) : [] };
    },

    /**
     * An invitation link (a week, once). Admins invite members and admins; only owners invite
     * owners. Mailed when an address is given and SMTP is set up; the link is answered either way.
     */
    async invite(session: SessionContext, input: { email: string; role: MemberRole }) {
      const me = await requireRole(session, 'admin');
      if (ROLE_RANK[input.role] > ROLE_RANK[me.role]) throw new AppError('FORBIDDEN', `Only an owner can invite an ${input.role}`);
      const token = newOpaqueToken();
      const invitation = await accounts.insertInvitation({
        organizationId: me.organizationId,
        tokenHash: hashCredential(token),
        email: input.email || null,
        role: input.role,
        invitedBy: session.userId,
        expiresAt: new Date(clock.now() + INVITATION_MS),
      });
      const link = `${deps.publicUrl}/account/invite/${token}`;
      let mailed = false;
      if (input.email) {
        await deps.mailer.send({
          to: input.email,
          subject: `You are invited to ${me.name} on Tidings`,
          text: `${session.name || session.email} invites you to join ${me.name} on Tidings as ${input.role}.\n\nAccept here (the link works once, for 7 days):\n${link}\n`,
        });
        mailed = deps.mailer.delivers;
      }
      await recordAs({ id: session.userId, name: session.name, email: session.email }, { organizationId: me.organizationId, action: 'member.invited', targetKind: 'invitation', targetId: invitation.id, targetName: input.email || null, details: { role: input.role, mailed } });
      return { invitation, link, mailed };
    },

    async revokeInvitation(session: SessionContext, id: string) {
      const me = await requireRole(session, 'admin');
      const row = isUuid(id) ? await accounts.revokeInvitation(me.organizationId, id, now()) : undefined;
      if (!row) throw notFound('Invitation');
      await recordAs({ id: session.userId, name: session.name, email: session.email }, { organizationId: me.organizationId, action: 'invitation.revoked', targetKind: 'invitation', targetId: id, targetName: row.email ?? null });
    },

    /** What an invitation link offers (for the page that shows it). */
    async describeInvitation(token: string) {
      const { invitation, organizationName } = await openInvitation(token);
      return { organizationName, role: invitation.role, email: invitation.email };
    },

    /** A signed-in person accepts an invitation: they join, and work in that organisation. */
    async acceptInvitation(session: SessionContext, token: string) {
      const { invitation, organizationName } = await openInvitation(token);
      if (invitation.email && invitation.email !== session.email) {
        throw new AppError('FORBIDDEN', `This invitation is for ${invitation.email}; sign in with that address to accept it`);
      }
      await accounts.transaction(async (tx) => {
        if (!(await accounts.acceptInvitation(tx, invitation.id, session.userId, now()))) throw INVITATION_GONE();
        const added = await accounts.insertMembership(tx, { organizationId: invitation.organizationId, userId: session.userId, role: invitation.role });
        if (!added) throw new AppError('CONFLICT', `You are a member of ${organizationName} already`);
        await recordAs({ id: session.userId, name: session.name, email: session.email }, { organizationId: invitation.organizationId, action: 'member.joined', targetKind: 'member', targetId: session.userId, targetName: session.name || session.email, details: { role: invitation.role, invitation: invitation.id } }, tx);
      });
      await sessions.switchOrganization(session.id, invitation.organizationId);
      return { organizationId: invitation.organizationId, name: organizationName };
    },

    /**
     * Owners change anyone's role; admins move people between member and admin. An
     * organisation always keeps an owner.
     */
    async changeRole(session: SessionContext, userId: string, role: MemberRole) {
      const me = await requireRole(session, 'admin');
      await accounts.transaction(async (tx) => {
        await accounts.lockMemberships(tx, me.organizationId);
        const target = (await accounts.listMembers(me.organizationId, tx)).find((m) => m.userId === userId);
        if (!target) throw notFound('Member');
        if (me.role !== 'owner' && (target.role === 'owner' || role === 'owner')) throw new AppError('FORBIDDEN', 'Only an owner can make or unmake owners');
        if (target.role === 'owner' && role !== 'owner' && (await accounts.countOwners(tx, me.organizationId)) <= 1) {
          throw new AppError('CONFLICT', 'An organisation needs an owner: make someone else owner first');
        }
        await accounts.setRole(tx, me.organizationId, userId, role);
        await recordAs({ id: session.userId, name: session.name, email: session.email }, { organizationId: me.organizationId, action: 'member.role_changed', targetKind: 'member', targetId: userId, targetName: target.name || target.email, details: { from: target.role, to: role } }, tx);
      });
    },

    /**
     * Removes a member (or the person leaves): what they approved for apps in this
     * organisation is revoked with them, in the same transaction.
     */
    async removeMember(session: SessionContext, userId: string) {
      const self = userId === session.userId;
      const me = await requireRole(session, self ? 'member' : 'admin');
      await accounts.transaction(async (tx) => {
        await accounts.lockMemberships(tx, me.organizationId);
        const target = (await accounts.listMembers(me.organizationId, tx)).find((m) => m.userId === userId);
        if (!target) throw notFound('Member');
        if (!self && ROLE_RANK[target.role] > ROLE_RANK[me.role]) throw new AppError('FORBIDDEN', 'Only an owner can remove an owner');
        if (target.role === 'owner' && (await accounts.countOwners(tx, me.organizationId)) <= 1) {
          throw new AppError('CONFLICT', 'An organisation needs an owner: make someone else owner first');
        }
        await accounts.deleteMembership(tx, me.organizationId, userId);
        await deps.revokeAppAccess(tx, { organizationId: me.organizationId, userId }, self ? 'left the organisation' : 'removed from the organisation');
        await recordAs({ id: session.userId, name: session.name, email: session.email }, { organizationId: me.organizationId, action: self ? 'member.left' : 'member.removed', targetKind: 'member', targetId: userId, targetName: target.name || target.email, details: { role: target.role } }, tx);
      });
    },

    /** Developer settings: the organisation's API keys (owners and admins). */
    async listApiKeys(session: SessionContext) {
      const me = await requireRole(session, 'admin');
      return { organization: me, keys: await deps.organizations.listApiKeys(me.organizationId) };
    },

    async createApiKey(session: SessionContext, name: string, opts: { sandbox?: boolean } = {}) {
      const me = await requireRole(session, 'admin');
      return deps.organizations.createApiKey(me.organizationId, name, opts);
    },

    async revokeApiKey(session: SessionContext, id: string) {
      const me = await requireRole(session, 'admin');
      return deps.organizations.revokeApiKey(id, me.organizationId);
    },

    /** Admin CLI: an account, and a link to set its password when none was given. */
    async createUserByAdmin(input: { email: string; name: string; password?: string; organizationName?: string }) {
      const password = input.password ?? newOpaqueToken();
      const made = await signUp({ email: input.email, name: input.name, password, organization: input.organizationName ?? '' }, { ip: 'admin-cli' }, { viaAdmin: true });
      const setPassword = input.password ? undefined : (await sendResetLink(made.user, SET_PASSWORD_LINK_MS, 'set')).link;
      return { user: made.user, organizationId: made.organizationId, setPasswordLink: setPassword };
    },

    /** Admin CLI: a one-time link to choose a new password (24 h), for when mail is not set up. */
    async resetLinkByAdmin(email: string) {
      const user = await accounts.findUserByEmail(email.trim().toLowerCase());
      if (!user) throw notFound('User');
      return { link: (await sendResetLink(user, SET_PASSWORD_LINK_MS, 'set')).link };
    },

    async listUsers() {
      const rows = await accounts.listUsers();
      return Promise.all(
        rows.map(async (u) => ({
          id: u.id,
          email: u.email,
          name: u.name,
          deploymentOwner: u.deploymentOwnerSince !== null,
          createdAt: u.createdAt.toISOString(),
          organizations: await accounts.listMemberships(u.id),
        })),
      );
    },

    sweep: () => accounts.sweep(now()),
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
