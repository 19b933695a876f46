import { and, eq, gt, isNull, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiKeys, oauthAccessTokens, organizations, plans } from '../../db/schema/index.js';

export interface CredentialOwner {
  credentialId: string;
  organizationId: string;
  planName: string;
  planRateLimit: number | null;
}

export function createAuthRepository(db: Db) {
  return {
    async findActiveApiKey(keyHash: string): Promise<CredentialOwner | undefined> {
      const [row] = await db
        .select({
          credentialId: apiKeys.id,
          organizationId: organizations.id,
          planName: plans.name,
          planRateLimit: plans.rateLimit,
        })
        .from(apiKeys)
        .innerJoin(organizations, eq(organizations.id, apiKeys.organizationId))
        .innerJoin(plans, eq(plans.name, organizations.planName))
        .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt), isNull(organizations.deletedAt)));
      return row;
    },

    async findActiveOauthToken(tokenHash: string, now: Date): Promise<CredentialOwner | undefined> {
      const [row] = await db
        .select({
          credentialId: oauthAccessTokens.id,
          organizationId: organizations.id,
          planName: plans.name,
          planRateLimit: plans.rateLimit,
        })
        .from(oauthAccessTokens)
        .innerJoin(organizations, eq(organizations.id, oauthAccessTokens.organizationId))
        .innerJoin(plans, eq(plans.name, organizations.planName))
        .where(
          and(
            eq(oauthAccessTokens.tokenHash, tokenHash),
            isNull(oauthAccessTokens.revokedAt),
            isNull(organizations.deletedAt),
            or(isNull(oauthAccessTokens.expiresAt), gt(oauthAccessTokens.expiresAt, now)),
          ),
        );
      return row;
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
