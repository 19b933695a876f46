import { NO_ACTIVITY, type ActivityRecorder } from '../../core/activity.js';
import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import { generateApiKey, hashCredential, visiblePrefix } from '../../lib/tokens.js';
import type { PlansRepository } from '../plans/plans.repository.js';
import type { OrganizationsRepository } from './organizations.repository.js';

export interface ApiKeyView {
  id: string;
  organizationId: string;
  name: string;
  prefix: string;
  sandbox: boolean;
  approvalExempt: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

function keyView(row: Awaited<ReturnType<OrganizationsRepository['insertApiKey']>>): ApiKeyView {
  return {
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    prefix: row.prefix,
    sandbox: row.sandbox,
    approvalExempt: row.approvalExempt,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** Administration of organisations, their API keys and plans (used by the admin CLI). */
export function createOrganizationsService(deps: {
  organizations: OrganizationsRepository;
  plans: PlansRepository;
  clock: Clock;
  /** told when a credential stops being valid or an organisation's limits change */
  onAccessChanged?: (change: { organizationId?: string; credentialId?: string }) => void;
  /** the activity log (none: nothing recorded); never given the key */
  activity?: ActivityRecorder;
}) {
  const { organizations } = deps;
  const activity = deps.activity ?? NO_ACTIVITY;

  async function createApiKey(organizationId: string, name: string, opts: { sandbox?: boolean } = {}) {
    const org = await organizations.findOrganization(organizationId);
    if (!org) throw notFound('Organization');
    const apiKey = generateApiKey(opts);
    const row = await organizations.insertApiKey({
      organizationId,
      name,
      sandbox: opts.sandbox === true,
      prefix: visiblePrefix(apiKey),
      keyHash: hashCredential(apiKey),
    });
    await activity.record({ organizationId, action: 'api_key.created', targetKind: 'api_key', targetId: row.id, targetName: row.name, details: { prefix: row.prefix, sandbox: row.sandbox } });
    // The only moment the key exists in clear: it is returned once and never stored.
    return { key: keyView(row), apiKey };
  }

  return {
    async createOrganization(name: string) {
      const org = await organizations.insertOrganization(name);
      const { apiKey, key } = await createApiKey(org.id, 'default');
      return { organization: { id: org.id, name: org.name, plan: org.planName }, apiKey, key };
    },

    createApiKey,

    async listApiKeys(organizationId: string) {
      const org = await organizations.findOrganization(organizationId);
      if (!org) throw notFound('Organization');
      return (await organizations.listApiKeys(organizationId)).map(keyView);
    },

    /** Revokes a key at once (of `organizationId` only, when given: other organisations' keys are not found). */
    async revokeApiKey(id: string, organizationId?: string) {
      if (!isUuid(id)) throw notFound('API key');
      const row = await organizations.revokeApiKey(id, new Date(deps.clock.now()), organizationId);
      if (row) {
        deps.onAccessChanged?.({ credentialId: row.id });
        await activity.record({ organizationId: row.organizationId, action: 'api_key.revoked', targetKind: 'api_key', targetId: row.id, targetName: row.name, details: { prefix: row.prefix } });
        return keyView(row);
      }
      const existing = await organizations.findApiKey(id);
      if (!existing || (organizationId && existing.organizationId !== organizationId)) throw notFound('API key');
      throw new AppError('CONFLICT', `API key ${id} is already revoked`);
    },

    async setPlan(organizationId: string, planName: string) {
      const plan = await deps.plans.findPlan(planName);
      if (!plan) {
        const names = (await deps.plans.listPlans()).map((p) => p.name).join(', ');
        throw new AppError('VALIDATION_FAILED', `Unknown plan "${planName}" (known: ${names})`, {
          fields: [{ path: 'plan', message: `Unknown plan; known: ${names}` }],
        });
      }
      const org = await organizations.setPlan(organizationId, planName, new Date(deps.clock.now()));
      if (!org) throw notFound('Organization');
      deps.onAccessChanged?.({ organizationId });
      return { organization: { id: org.id, name: org.name, plan: org.planName } };
    },

    async listOrganizations() {
      return (await organizations.listOrganizations()).map((o) => ({
        id: o.id,
        name: o.name,
        plan: o.planName,
        createdAt: o.createdAt.toISOString(),
      }));
    },
  };
}

export type OrganizationsService = ReturnType<typeof createOrganizationsService>;
