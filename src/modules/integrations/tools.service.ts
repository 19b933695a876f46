import { AppError, fieldError, notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import type { ChannelAccess } from '../../core/channels/channel-access.js';
import { platformErrorToAppError } from '../../core/channels/platform-errors.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { PlatformError } from '../../platforms/platform.js';
import type { Integration } from './integrations.schemas.js';
import type { IntegrationsRepository } from './integrations.repository.js';
import { toIntegration } from './integrations.service.js';

/** `POST /integration-trigger/{id}`: a platform tool (boards, channels, flairs…) run on the channel. */
export function createToolsService(deps: {
  integrations: IntegrationsRepository;
  access: ChannelAccess;
  secretBox: SecretBox;
  clock: Clock;
}) {
  return {
    /**
     * `PUT /integrations/{id}/account`: switch the channel to another account its grant reaches
     * (a LinkedIn page among those the member administers). The same account cannot back two
     * channels of the organisation.
     */
    async selectAccount(organizationId: string, id: string, accountId: string): Promise<Integration> {
      const found = isUuid(id) ? await deps.integrations.findIntegration(organizationId, id) : undefined;
      if (!found) throw notFound('Integration');
      const row = found.integration;
      const adapter = deps.access.adapterOf(row);
      if (!adapter.selectAccount) {
        throw new AppError('VALIDATION_FAILED', `id: ${adapter.metadata.displayName} connects one account per channel`, {
          fields: [{ path: 'id', message: 'This platform has one account per connection' }],
        });
      }
      let account;
      try {
        account = await deps.access.run(row, (a, ctx) => a.selectAccount!(accountId, ctx));
      } catch (e) {
        if (e instanceof PlatformError && e.kind === 'rejected') {
          throw fieldError('id', e.message);
        }
        throw platformErrorToAppError(e, adapter.metadata.displayName);
      }
      const other = await deps.integrations.findByAccount(organizationId, row.identifier, account.internalId);
      if (other && other.id !== row.id) throw new AppError('CONFLICT', `${account.name} is already connected as another channel (${other.id})`);
      await deps.integrations.switchAccount(
        organizationId,
        row.id,
        {
          internalId: account.internalId,
          name: account.name,
          profile: account.profile,
          picture: account.picture,
          credentials: deps.secretBox.seal(JSON.stringify(account.credentials)),
          tokenExpiresAt: account.expiresAt ?? row.tokenExpiresAt,
        },
        new Date(deps.clock.now()),
      );
      const updated = await deps.integrations.findIntegration(organizationId, row.id);
      return toIntegration(updated!.integration, updated!.customer);
    },

    async runTool(organizationId: string, id: string, methodName: string, data: unknown) {
      const found = isUuid(id) ? await deps.integrations.findIntegration(organizationId, id) : undefined;
      if (!found) throw notFound('Integration');
      const row = found.integration;
      const adapter = deps.access.adapterOf(row);
      const tool = adapter.metadata.tools.find((t) => t.methodName === methodName);
      if (!tool) throw new AppError('NOT_FOUND', `Tool "${methodName}" not found for ${adapter.metadata.displayName}`);
      const parsed = tool.dataSchema.safeParse(data ?? {});
      if (!parsed.success) {
        const fields = parsed.error.issues.map((i) => ({ path: ['data', ...i.path.map(String)].join('.'), message: i.message }));
        throw new AppError('VALIDATION_FAILED', fields.map((f) => `${f.path}: ${f.message}`).join('; '), { fields });
      }
      if (!adapter.runTool) throw new AppError('PLATFORM_NOT_AVAILABLE', `${adapter.metadata.displayName} tools are not available in this version yet`);
      try {
        const output = await deps.access.run(row, (a, ctx) => a.runTool!(methodName, parsed.data, ctx));
        return { output };
      } catch (e) {
        throw platformErrorToAppError(e, adapter.metadata.displayName);
      }
    },
  };
}

export type ToolsService = ReturnType<typeof createToolsService>;
