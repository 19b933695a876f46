import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { csrfTokens } from '../../lib/csrf-tokens.js';
import { requireSession } from '../../http/auth.js';
import { errorResponses } from '../../http/error-schema.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import { SCOPES } from '../oauth/oauth-core.js';
import type { OauthService } from '../oauth/oauth.service.js';
import {
  ApiKeySchema,
  ApprovedAppSchema,
  CreateApiKeyBodySchema,
  CreatedApiKeySchema,
  CreatedInvitationSchema,
  CreateInvitationBodySchema,
  IdParamsSchema,
  MembersSchema,
  MeSchema,
  RoleBodySchema,
  SwitchOrganizationBodySchema,
  UpdateMeBodySchema,
  UserParamsSchema,
} from './team.schemas.js';

const iso = (d: Date) => d.toISOString();
const SESSION_ONLY = 'Only for the signed-in web app (session cookie): API keys and OAuth tokens get 403.';

/**
 * The web app's own routes (issue 16): who is signed in, their organisations, members and
 * invitations, API keys, approved apps. Same public API scope and error shape, but they need the
 * first-party session: API keys and tokens cannot manage people.
 */
export function teamRoutes(accounts: AccountsService, oauth: OauthService): FastifyPluginAsyncZod {
  async function me(session: Parameters<AccountsService['profile']>[0]) {
    const p = await accounts.profile(session);
    const current = p.current ?? p.memberships[0]!;
    return {
      user: p.user,
      organization: { id: current.organizationId, name: current.name, role: current.role },
      organizations: p.memberships.map((m) => ({ id: m.organizationId, name: m.name, role: m.role })),
      csrfToken: csrfTokens.create(session.csrfSecret),
    };
  }
  const tags = ['Web app'];

  return async (app) => {
    app.get('/me', { schema: { tags, summary: 'The signed-in person, their organisations and the CSRF token', description: SESSION_ONLY, response: { 200: MeSchema, ...errorResponses('FORBIDDEN') } } }, async (req) =>
      me(requireSession(req)),
    );

    app.put(
      '/me',
      { schema: { tags, summary: 'Change the display name or time zone', description: SESSION_ONLY, body: UpdateMeBodySchema, response: { 200: MeSchema, ...errorResponses('FORBIDDEN') } } },
      async (req) => {
        const session = requireSession(req);
        await accounts.updateProfile(session, req.body);
        return me(session);
      },
    );

    app.put(
      '/me/organization',
      { schema: { tags, summary: 'Work in another of your organisations', description: SESSION_ONLY, body: SwitchOrganizationBodySchema, response: { 200: MeSchema, ...errorResponses('FORBIDDEN', 'NOT_FOUND') } } },
      async (req) => {
        const session = requireSession(req);
        await accounts.switchOrganization(session, req.body.organizationId);
        return me({ ...session, organizationId: req.body.organizationId });
      },
    );

    app.get('/members', { schema: { tags, summary: 'Members of the organisation (and open invitations, for owners and admins)', description: SESSION_ONLY, response: { 200: MembersSchema, ...errorResponses('FORBIDDEN') } } }, async (req) => {
      const r = await accounts.listMembers(requireSession(req));
      return {
        me: { role: r.me.role },
        members: r.members.map((m) => ({ userId: m.userId, email: m.email, name: m.name, role: m.role, since: iso(m.since) })),
        invitations: r.invitations.map((i) => ({ id: i.id, email: i.email, role: i.role, createdAt: iso(i.createdAt), expiresAt: iso(i.expiresAt) })),
      };
    });

    app.post(
      '/invitations',
      { schema: { tags, summary: 'Invite someone (owners and admins); the link is answered once', description: SESSION_ONLY, body: CreateInvitationBodySchema, response: { 201: CreatedInvitationSchema, ...errorResponses('FORBIDDEN') } } },
      async (req, reply) => {
        const made = await accounts.invite(requireSession(req), { email: req.body.email ?? '', role: req.body.role });
        const i = made.invitation;
        return reply.status(201).send({ invitation: { id: i.id, email: i.email, role: i.role, createdAt: iso(i.createdAt), expiresAt: iso(i.expiresAt) }, link: made.link, mailed: made.mailed });
      },
    );

    app.delete('/invitations/:id', { schema: { tags, summary: 'Revoke an open invitation', description: SESSION_ONLY, params: IdParamsSchema, response: { 200: z.object({ id: z.string() }), ...errorResponses('FORBIDDEN') } } }, async (req) => {
      await accounts.revokeInvitation(requireSession(req), req.params.id);
      return { id: req.params.id };
    });

    app.put(
      '/members/:userId',
      { schema: { tags, summary: "Change a member's role (owners: any; admins: member ↔ admin)", description: SESSION_ONLY, params: UserParamsSchema, body: RoleBodySchema, response: { 200: z.object({ userId: z.string(), role: RoleBodySchema.shape.role }), ...errorResponses('FORBIDDEN', 'CONFLICT') } } },
      async (req) => {
        await accounts.changeRole(requireSession(req), req.params.userId, req.body.role);
        return { userId: req.params.userId, role: req.body.role };
      },
    );

    app.delete(
      '/members/:userId',
      { schema: { tags, summary: 'Remove a member, or leave (your own id); their app approvals in the organisation are revoked', description: SESSION_ONLY, params: UserParamsSchema, response: { 200: z.object({ userId: z.string() }), ...errorResponses('FORBIDDEN', 'CONFLICT') } } },
      async (req) => {
        await accounts.removeMember(requireSession(req), req.params.userId);
        return { userId: req.params.userId };
      },
    );

    app.get('/api-keys', { schema: { tags, summary: "The organisation's API keys (owners and admins)", description: SESSION_ONLY, response: { 200: z.array(ApiKeySchema), ...errorResponses('FORBIDDEN') } } }, async (req) =>
      (await accounts.listApiKeys(requireSession(req))).keys.filter((k) => !k.revokedAt).map(({ organizationId: _o, ...k }) => k),
    );

    app.post(
      '/api-keys',
      { schema: { tags, summary: 'Create an API key; the key is answered once', description: SESSION_ONLY, body: CreateApiKeyBodySchema, response: { 201: CreatedApiKeySchema, ...errorResponses('FORBIDDEN') } } },
      async (req, reply) => {
        const made = await accounts.createApiKey(requireSession(req), req.body.name, { sandbox: req.body.sandbox });
        const { organizationId: _o, ...key } = made.key;
        return reply.status(201).send({ key, apiKey: made.apiKey });
      },
    );

    app.delete('/api-keys/:id', { schema: { tags, summary: 'Revoke an API key at once', description: SESSION_ONLY, params: IdParamsSchema, response: { 200: ApiKeySchema, ...errorResponses('FORBIDDEN', 'CONFLICT') } } }, async (req) => {
      const { organizationId: _o, ...key } = await accounts.revokeApiKey(requireSession(req), req.params.id);
      return key;
    });

    app.get('/approved-apps', { schema: { tags, summary: 'Apps and devices you let act for an organisation', description: SESSION_ONLY, response: { 200: z.array(ApprovedAppSchema), ...errorResponses('FORBIDDEN') } } }, async (req) =>
      (await oauth.listApprovedApps(requireSession(req))).map((g) => ({
        id: g.id,
        clientName: g.clientName,
        logoUrl: g.logoUrl || null,
        selfRegistered: g.clientOrigin === 'dynamic',
        organizationId: g.organizationId,
        organizationName: g.organizationName,
        scope: g.scope,
        scopes: g.scope
          .split(' ')
          .filter(Boolean)
          .map((name) => ({ name, description: SCOPES[name] ?? name })),
        createdAt: iso(g.createdAt),
        lastUsedAt: g.lastUsedAt ? iso(g.lastUsedAt) : null,
      })),
    );

    app.delete('/approved-apps/:id', { schema: { tags, summary: 'Revoke an approval: its tokens stop working at once', description: SESSION_ONLY, params: IdParamsSchema, response: { 200: z.object({ id: z.string() }), ...errorResponses('FORBIDDEN') } } }, async (req) => {
      await oauth.revokeApprovedApp(requireSession(req), req.params.id);
      return { id: req.params.id };
    });
  };
}
