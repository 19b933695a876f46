import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiKeys, oauthAccessTokens } from '../db/schema/index.js';
import { hashCredential, visiblePrefix } from '../lib/tokens.js';
import { call, expectError, manualClock, useTestApp } from '../../test/helpers.js';

const URL = '/public/v1/integrations';

describe('authentication (API.md §2)', () => {
  const clock = manualClock();

  const { t, orgs: { acme: org } } = useTestApp({ clock, env: { AUTH_FAILURE_LIMIT: '5', AUTH_FAILURE_WINDOW_SECONDS: '600' } }, 'Acme');

  describe('happy', () => {
    it('accepts the raw API key and records its last use', async () => {
      const res = await call(t.app, org.apiKey, { method: 'GET', url: URL, remoteAddress: '10.1.0.1' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([]);
      await new Promise((r) => setTimeout(r, 50));
      const keys = await t.deps.services.organizations.listApiKeys(org.id);
      expect(keys[0]!.lastUsedAt).toBe(new Date(clock.now()).toISOString());
    });

    it('accepts a pos_ access token of the organisation', async () => {
      const token = 'pos_' + 'T'.repeat(40);
      await t.deps.database.db.insert(oauthAccessTokens).values({ organizationId: org.id, tokenHash: hashCredential(token), prefix: visiblePrefix(token) });
      const res = await call(t.app, token, { method: 'GET', url: URL, remoteAddress: '10.1.0.2' });
      expect(res.statusCode).toBe(200);
    });

    it('never stores the key itself', async () => {
      const rows = await t.deps.database.db.select().from(apiKeys).where(eq(apiKeys.organizationId, org.id));
      expect(JSON.stringify(rows)).not.toContain(org.apiKey);
      expect(rows[0]!.prefix).toBe(org.apiKey.slice(0, 10));
    });
  });

  describe('errors', () => {
    it('401 without a header', async () => {
      const body = expectError(await call(t.app, undefined, { method: 'GET', url: URL, remoteAddress: '10.2.0.1' }), 401, 'AUTH_MISSING');
      expect(body.message).toMatch(/Authorization header/);
    });

    it('401 for an unknown key and an unknown token', async () => {
      expectError(await call(t.app, 'tdk_nope', { method: 'GET', url: URL, remoteAddress: '10.2.0.2' }), 401, 'AUTH_INVALID');
      const body = expectError(await call(t.app, 'pos_nope', { method: 'GET', url: URL, remoteAddress: '10.2.0.3' }), 401, 'AUTH_INVALID');
      expect(body.message).toBe('Invalid OAuth token');
    });

    it('401 with a scheme word, saying to drop it', async () => {
      for (const value of [`Bearer ${org.apiKey}`, `bearer ${org.apiKey}`, `Token ${org.apiKey}`, `Key  ${org.apiKey}`]) {
        const body = expectError(await call(t.app, value, { method: 'GET', url: URL, remoteAddress: '10.2.0.4' }), 401, 'AUTH_SCHEME_NOT_ALLOWED');
        expect(body.message).toMatch(/without a scheme word/);
      }
    });

    it('401 for a revoked key, and for revoked or expired tokens', async () => {
      const { apiKey, key } = await t.deps.services.organizations.createApiKey(org.id, 'temp');
      expect((await call(t.app, apiKey, { method: 'GET', url: URL, remoteAddress: '10.2.0.5' })).statusCode).toBe(200);
      await t.deps.services.organizations.revokeApiKey(key.id);
      expectError(await call(t.app, apiKey, { method: 'GET', url: URL, remoteAddress: '10.2.0.5' }), 401, 'AUTH_INVALID');

      const revoked = 'pos_' + 'R'.repeat(40);
      const expired = 'pos_' + 'E'.repeat(40);
      await t.deps.database.db.insert(oauthAccessTokens).values([
        { organizationId: org.id, tokenHash: hashCredential(revoked), prefix: 'pos_RRRRRR', revokedAt: new Date(clock.now()) },
        { organizationId: org.id, tokenHash: hashCredential(expired), prefix: 'pos_EEEEEE', expiresAt: new Date(clock.now() - 1) },
      ]);
      expectError(await call(t.app, revoked, { method: 'GET', url: URL, remoteAddress: '10.2.0.6' }), 401, 'AUTH_INVALID');
      expectError(await call(t.app, expired, { method: 'GET', url: URL, remoteAddress: '10.2.0.6' }), 401, 'AUTH_INVALID');
    });
  });

  describe('security', () => {
    it('throttles the failures of an address until the window passes; a valid key from it always passes', async () => {
      const ip = '10.9.9.9';
      for (let i = 0; i < 5; i++) {
        expectError(await call(t.app, `tdk_guess${i}`, { method: 'GET', url: URL, remoteAddress: ip }), 401, 'AUTH_INVALID');
        clock.advance(1000);
      }
      const blocked = await call(t.app, 'tdk_guess-more', { method: 'GET', url: URL, remoteAddress: ip });
      expectError(blocked, 429, 'AUTH_THROTTLED');
      expect(blocked.headers['retry-after']).toBe(String(600 - 5));
      expectError(await call(t.app, undefined, { method: 'GET', url: URL, remoteAddress: ip }), 429, 'AUTH_THROTTLED');
      expectError(await call(t.app, `Bearer ${org.apiKey}`, { method: 'GET', url: URL, remoteAddress: ip }), 429, 'AUTH_THROTTLED');
      // Behind a reverse proxy every client shares the address: a valid key is never locked out.
      for (let i = 0; i < 3; i++) expect((await call(t.app, org.apiKey, { method: 'GET', url: URL, remoteAddress: ip })).statusCode).toBe(200);
      // Throttled attempts are not counted, so the wait ends when the first failures leave the window.
      for (let i = 0; i < 20; i++) expectError(await call(t.app, `tdk_flood${i}`, { method: 'GET', url: URL, remoteAddress: ip }), 429, 'AUTH_THROTTLED');
      clock.advance(600_000);
      expectError(await call(t.app, 'tdk_after', { method: 'GET', url: URL, remoteAddress: ip }), 401, 'AUTH_INVALID');
    });

    it('a revocation made by another process applies once the credential cache (AUTH_CACHE_SECONDS) expires', async () => {
      const { apiKey, key } = await t.deps.services.organizations.createApiKey(org.id, 'elsewhere');
      const ip = '10.4.0.1';
      expect((await call(t.app, apiKey, { method: 'GET', url: URL, remoteAddress: ip })).statusCode).toBe(200);
      // As another process would: straight in the database, bypassing this process's services.
      await t.deps.database.db.update(apiKeys).set({ revokedAt: new Date(clock.now()) }).where(eq(apiKeys.id, key.id));
      expect((await call(t.app, apiKey, { method: 'GET', url: URL, remoteAddress: ip })).statusCode).toBe(200);
      clock.advance(5_001);
      expectError(await call(t.app, apiKey, { method: 'GET', url: URL, remoteAddress: ip }), 401, 'AUTH_INVALID');
    });

    it('does not answer a deleted organisation', async () => {
      const other = await t.createOrg('Gone');
      await t.deps.database.db.execute(`UPDATE organizations SET deleted_at = now() WHERE id = '${other.id}'`);
      expectError(await call(t.app, other.apiKey, { method: 'GET', url: URL, remoteAddress: '10.3.0.1' }), 401, 'AUTH_INVALID');
    });
  });
});
