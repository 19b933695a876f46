import { z } from 'zod';
import type { OrganizationsService } from '../modules/organizations/organizations.service.js';
import type { PlansService } from '../modules/plans/plans.service.js';

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
]);

export type AdminCommand = z.infer<typeof AdminCommandSchema>;

export interface AdminServices {
  organizations: OrganizationsService;
  plans: PlansService;
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
    case 'migrate':
      // Migrations already ran when the database was opened.
      return { migrated: true };
  }
}
