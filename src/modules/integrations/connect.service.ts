import { z } from 'zod';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { PlatformHttpClient } from '../../platforms/http.js';
import { withSignal } from '../../platforms/http.js';
import { isPlatformIdentifier, PlatformError, type OperationContext, type PlatformAdapter, type PlatformIdentifier } from '../../platforms/platform.js';
import { isConnectable } from '../../platforms/registry.js';
import type { PlansService } from '../plans/plans.service.js';
import type { Integration } from './integrations.schemas.js';
import type { IntegrationsRepository } from './integrations.repository.js';
import { toIntegration } from './integrations.service.js';

export interface ConnectDeps {
  integrations: IntegrationsRepository;
  plans: PlansService;
  adapters: Record<PlatformIdentifier, PlatformAdapter>;
  http: PlatformHttpClient;
  secretBox: SecretBox;
  clock: Clock;
  logger: OperationContext['logger'];
  /** how long one connect may talk to the platform */
  timeoutMs: number;
}

/**
 * Connecting channels (API.md §5 Integrations): credential platforms verify what the user gives
 * against the platform before anything is stored; the same platform account connected twice
 * updates its channel.
 */
export function createConnectService(deps: ConnectDeps) {
  function adapterFor(identifier: string): PlatformAdapter {
    if (!isPlatformIdentifier(identifier)) {
      throw new AppError('VALIDATION_FAILED', `identifier: Unknown platform "${identifier}"`, {
        fields: [{ path: 'identifier', message: 'Unknown platform' }],
      });
    }
    const adapter = deps.adapters[identifier];
    if (!isConnectable(adapter)) {
      throw new AppError('PLATFORM_NOT_AVAILABLE', `Connecting ${adapter.metadata.displayName} is not available in this version yet`);
    }
    return adapter;
  }

  function context(): Omit<OperationContext, 'credentials'> {
    const signal = AbortSignal.timeout(deps.timeoutMs);
    return {
      http: withSignal(deps.http, signal),
      logger: deps.logger,
      clock: deps.clock,
      signal,
      openMedia: () => Promise.reject(new Error('no media while connecting')),
    };
  }

  return {
    /** `GET /social/{identifier}` */
    describeConnect(identifier: string): { url: string | null; credentials?: Record<string, unknown> } {
      const adapter = adapterFor(identifier);
      const m = adapter.metadata;
      if (m.authKind === 'credentials' && m.credentials) {
        return { url: null, credentials: z.toJSONSchema(m.credentials, { io: 'input' }) };
      }
      throw new AppError('PLATFORM_NOT_AVAILABLE', `Connecting ${m.displayName} through OAuth is not available in this version yet`);
    },

    /** `POST /social/{identifier}`: verify the credentials with the platform, then save the channel. */
    async connectWithCredentials(organizationId: string, identifier: string, body: unknown): Promise<Integration> {
      const adapter = adapterFor(identifier);
      const schema = adapter.metadata.credentials;
      if (adapter.metadata.authKind !== 'credentials' || !schema || !adapter.connectWithCredentials) {
        throw new AppError('VALIDATION_FAILED', `identifier: ${adapter.metadata.displayName} connects through OAuth: use GET /social/${identifier}`, {
          fields: [{ path: 'identifier', message: 'This platform connects through OAuth' }],
        });
      }
      const parsed = schema.safeParse(body ?? {});
      if (!parsed.success) {
        const fields = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.') || 'body', message: i.message }));
        throw new AppError('VALIDATION_FAILED', fields.map((f) => `${f.path}: ${f.message}`).join('; '), { fields });
      }
      let account;
      try {
        account = await adapter.connectWithCredentials(parsed.data, context());
      } catch (e) {
        if (!(e instanceof PlatformError)) throw e;
        if (e.kind === 'transient' || e.kind === 'rate_limited') {
          throw new AppError('PLATFORM_UNREACHABLE', `${adapter.metadata.displayName} could not be reached to check the credentials: ${e.message}`);
        }
        const path = e.details.field ?? Object.keys(schema.shape)[0] ?? 'body';
        throw new AppError('VALIDATION_FAILED', `${path}: ${e.message}`, { fields: [{ path, message: e.message }] });
      }
      const existing = await deps.integrations.findByAccount(organizationId, identifier, account.internalId);
      if (!existing) {
        await deps.plans.assertWithinLimit(organizationId, 'channels', await deps.integrations.countLiveIntegrations(organizationId));
      }
      const saved = await deps.integrations.upsertConnected({
        organizationId,
        identifier,
        internalId: account.internalId,
        name: account.name,
        profile: account.profile,
        picture: account.picture,
        credentials: deps.secretBox.seal(JSON.stringify(account.credentials)),
        tokenExpiresAt: account.expiresAt ?? null,
        instanceUrl: null,
        at: new Date(deps.clock.now()),
      });
      const row = await deps.integrations.findIntegration(organizationId, saved.id);
      return toIntegration(row!.integration, row!.customer);
    },
  };
}

export type ConnectService = ReturnType<typeof createConnectService>;
