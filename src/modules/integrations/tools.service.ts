import { AppError, notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import type { ChannelAccess } from '../../publishing/channel-access.js';
import { platformErrorToAppError } from '../../publishing/platform-errors.js';
import type { IntegrationsRepository } from './integrations.repository.js';

/** `POST /integration-trigger/{id}`: a platform tool (boards, channels, flairs…) run on the channel. */
export function createToolsService(deps: { integrations: IntegrationsRepository; access: ChannelAccess }) {
  return {
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
