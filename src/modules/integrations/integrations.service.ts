import { isUuid } from '../../lib/ids.js';
import type { Integration } from './integrations.schemas.js';
import type { IntegrationRow, IntegrationsRepository } from './integrations.repository.js';

export function toIntegration(row: IntegrationRow, customer: { id: string; name: string } | null): Integration {
  // Credentials never leave the service: this is the only mapping to the wire.
  return {
    id: row.id,
    name: row.name,
    identifier: row.identifier,
    picture: row.picture,
    disabled: row.disabled,
    profile: row.profile,
    ...(customer ? { customer } : {}),
    refreshNeeded: row.refreshNeeded,
    postingTimes: row.postingTimes,
    settings: row.defaultSettings ?? {},
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function createIntegrationsService(deps: { integrations: IntegrationsRepository }) {
  return {
    async listIntegrations(organizationId: string, customerId?: string): Promise<Integration[]> {
      if (customerId !== undefined && !isUuid(customerId)) return [];
      const rows = await deps.integrations.listIntegrations(organizationId, { customerId });
      return rows.map((r) => toIntegration(r.integration, r.customer));
    },

    async isConnected(organizationId: string) {
      return { connected: await deps.integrations.hasPublishableIntegration(organizationId) };
    },
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;
