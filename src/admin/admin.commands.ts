import { z } from 'zod';
import type { OrganizationsService } from '../modules/organizations/organizations.service.js';
import type { PlansService } from '../modules/plans/plans.service.js';
import type { AccountsService } from '../modules/accounts/accounts.service.js';
import type { VideoService } from '../modules/video/video.service.js';
import { AppError } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { EmailSchema, NewPasswordSchema } from '../modules/accounts/accounts.schemas.js';

/** What the admin CLI can ask, locally or through the admin socket of a running service. */
export const AdminCommandSchema = z.discriminatedUnion('command', [
  z.object({ command: z.literal('org.create'), name: z.string().trim().min(1).max(200) }),
  z.object({ command: z.literal('org.list') }),
  z.object({ command: z.literal('key.create'), org: z.string().min(1), name: z.string().trim().min(1).max(200) }),
  z.object({ command: z.literal('key.list'), org: z.string().min(1) }),
  z.object({ command: z.literal('key.revoke'), id: z.string().min(1) }),
  z.object({ command: z.literal('plan.set'), org: z.string().min(1), plan: z.string().min(1) }),
  z.object({ command: z.literal('plan.list') }),
  z.object({ command: z.literal('migrate') }),
  z.object({ command: z.literal('credits.show'), org: z.string().min(1) }),
  z.object({ command: z.literal('credits.set'), plan: z.string().min(1), monthly: z.number().int().min(0).max(1_000_000).nullable() }),
  z.object({ command: z.literal('credits.grant'), org: z.string().min(1), credits: z.number().int().min(-1_000_000).max(1_000_000), note: z.string().trim().max(500).optional() }),
  z.object({
    command: z.literal('user.create'),
    email: EmailSchema,
    name: z.string().trim().max(200).default(''),
    /** absent: the answer carries a one-time link to choose it */
    password: NewPasswordSchema.optional(),
    organizationName: z.string().trim().min(1).max(200).optional(),
  }),
  z.object({ command: z.literal('user.list') }),
  z.object({ command: z.literal('user.reset-link'), email: z.string().min(1) }),
]);

export type AdminCommand = z.infer<typeof AdminCommandSchema>;

export interface AdminServices {
  organizations: OrganizationsService;
  plans: PlansService;
  accounts: AccountsService;
  video: VideoService;
}

function orgId(id: string) {
  if (!isUuid(id)) throw new AppError('NOT_FOUND', `Organisation ${id} not found`);
  return id;
}

export async function runAdminCommand(services: AdminServices, cmd: AdminCommand): Promise<unknown> {
  const orgs = services.organizations;
  switch (cmd.command) {
    case 'org.create': {
      const r = await orgs.createOrganization(cmd.name);
      return { organization: { id: r.organization.id, name: r.organization.name }, apiKey: r.apiKey, key: r.key };
    }
    case 'org.list':
      return { organizations: await orgs.listOrganizations() };
    case 'key.create':
      return orgs.createApiKey(cmd.org, cmd.name);
    case 'key.list':
      return { keys: await orgs.listApiKeys(cmd.org) };
    case 'key.revoke':
      return { key: await orgs.revokeApiKey(cmd.id) };
    case 'plan.set':
      return orgs.setPlan(cmd.org, cmd.plan);
    case 'plan.list':
      return { plans: await services.plans.listPlans() };
    case 'credits.show':
      return { credits: await services.video.credits(orgId(cmd.org)) };
    case 'credits.set':
      return services.plans.setVideoCredits(cmd.plan, cmd.monthly);
    case 'credits.grant':
      return { credits: await services.video.grantCredits(orgId(cmd.org), cmd.credits, cmd.note) };
    case 'migrate':
      // Migrations already ran when the database was opened.
      return { migrated: true };
    case 'user.create':
      return services.accounts.createUserByAdmin({ email: cmd.email, name: cmd.name, password: cmd.password, organizationName: cmd.organizationName });
    case 'user.list':
      return { users: await services.accounts.listUsers() };
    case 'user.reset-link':
      return services.accounts.resetLinkByAdmin(cmd.email);
  }
}
