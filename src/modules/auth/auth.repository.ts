import { and, asc, eq, gt, isNull, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiKeys, memberships, oauthAccessTokens, oauthClients, organizations, plans } from '../../db/schema/index.js';

export interface CredentialOwner {
  credentialId: string;
  organizationId: string;
  planName: string;
  planRateLimit: number | null;
  /** the scopes an OAuth token was granted (space-separated); null for API keys */
  scope: string | null;
  /** a sandbox key (`tdk_test_…`) */
  sandbox?: boolean;
  /** what the activity log names the caller: the key's name, or the OAuth app's */
  name: string;
  /** the OAuth app's id (oauth_clients.id) of a token; absent for API keys */
  appId?: string | null;
  /** an API key exempted from the organisation's approval rules */
  approvalExempt?: boolean;
}

export function createAuthRepository(db: Db) {
  /** The live organisation (and its plan) that owns the credential row matching `match`. */
  return {
    async findActiveApiKey(keyHash: string): Promise<CredentialOwner | undefined> {
      const [row] = await db
        .select({ credentialId: apiKeys.id, organizationId: organizations.id, planName: plans.name, planRateLimit: plans.rateLimit, sandbox: apiKeys.sandbox, name: apiKeys.name, approvalExempt: apiKeys.approvalExempt })
        .from(apiKeys)
        .innerJoin(organizations, eq(organizations.id, apiKeys.organizationId))
        .innerJoin(plans, eq(plans.name, organizations.planName))
        .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt), isNull(organizations.deletedAt)));
      return row && { ...row, scope: null };
    },

    async findActiveOauthToken(tokenHash: string, now: Date): Promise<CredentialOwner | undefined> {
      const [row] = await db
        .select({
          credentialId: oauthAccessTokens.id,
          organizationId: organizations.id,
          planName: plans.name,
          planRateLimit: plans.rateLimit,
          scope: oauthAccessTokens.scope,
          appId: oauthClients.id,
          appName: oauthClients.name,
        })
        .from(oauthAccessTokens)
        .innerJoin(organizations, eq(organizations.id, oauthAccessTokens.organizationId))
        .innerJoin(plans, eq(plans.name, organizations.planName))
        // the app's name for the activity log, in the same statement (a token of a deleted app keeps working until it expires)
        .leftJoin(oauthClients, eq(oauthClients.clientId, oauthAccessTokens.clientId))
        .where(
          and(
            eq(oauthAccessTokens.tokenHash, tokenHash),
            or(isNull(oauthAccessTokens.expiresAt), gt(oauthAccessTokens.expiresAt, now)),
            isNull(oauthAccessTokens.revokedAt),
            isNull(organizations.deletedAt),
          ),
        );
      if (!row) return undefined;
      const { appName, ...owner } = row;
      return { ...owner, name: appName ?? 'OAuth app' };
    },

    /** A person's membership of a live organisation, with its plan (first-party sessions). */
    async findMember(organizationId: string, userId: string) {
      const [row] = await db
        .select({ organizationId: organizations.id, role: memberships.role, planName: plans.name, planRateLimit: plans.rateLimit })
        .from(memberships)
        .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
        .innerJoin(plans, eq(plans.name, organizations.planName))
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId), isNull(organizations.deletedAt)));
      return row;
    },

    /** The person's oldest membership of a live organisation (a session whose organisation is gone falls back to it). */
    async findFirstMembership(userId: string) {
      const [row] = await db
        .select({ organizationId: memberships.organizationId })
        .from(memberships)
        .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
        .where(and(eq(memberships.userId, userId), isNull(organizations.deletedAt)))
        .orderBy(asc(memberships.createdAt))
        .limit(1);
      return row?.organizationId;
    },

    async touchApiKey(id: string, at: Date) {
      await db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id));
    },

    async touchOauthToken(id: string, at: Date) {
      await db.update(oauthAccessTokens).set({ lastUsedAt: at }).where(eq(oauthAccessTokens.id, id));
    },
  };
}

export type AuthRepository = ReturnType<typeof createAuthRepository>;
